// libFuzzer: spot availability traces, JSON in each convention and CSV.

#include <cstddef>
#include <cstdint>
#include <string>

#include "frugal/spot/trace.h"
#include "fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  for (frugal::spot::TraceFormat format :
       {frugal::spot::TraceFormat::kAuto, frugal::spot::TraceFormat::kLaunchable,
        frugal::spot::TraceFormat::kUnavailable}) {
    const auto trace = frugal::spot::ParseJsonTrace(text, "trace.json", format);
    frugal::fuzz::CheckAnswer(trace, "trace.json");
    if (trace) (void)frugal::spot::GangAvailability(*trace, 2);
  }
  frugal::fuzz::CheckAnswer(frugal::spot::ParseCsvTrace(text, "trace.csv", 600), "trace.csv");
  return 0;
}
