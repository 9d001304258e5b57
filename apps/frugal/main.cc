#include <unistd.h>

#include <exception>
#include <iostream>

#include "app.h"

int main(int argc, char** argv) {
  try {
    return frugal::cli::Main(argc, argv, std::cout, std::cerr,
                             frugal::ProbeTerminal(STDERR_FILENO));
  } catch (const std::exception& e) {
    // Last resort: every expected failure is a Result long before here.
    std::cerr << "frugal: internal error: " << e.what() << "\n";
    return 1;
  }
}
