#include "frugal/core/record_name.h"

namespace frugal {

bool IsRecordName(std::string_view name) {
  return !name.empty() && name.size() <= 200 && name != "." && name != ".." &&
         name.find('/') == std::string_view::npos && name.find('\0') == std::string_view::npos;
}

std::string_view RecordNameRule() {
  return "give a name of 1 to 200 characters, without '/' or NUL";
}

}  // namespace frugal
