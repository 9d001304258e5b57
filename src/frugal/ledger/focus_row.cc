#include "frugal/ledger/focus_row.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>

#include "frugal/core/text.h"

namespace frugal::ledger {
namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

/// Beyond 10^40 a number is out of every range frugal keeps; below 10^-40 it is zero at any
/// precision frugal keeps. Clamping there keeps the plain text short whatever the exponent.
constexpr int64_t kMaxPlainDigits = 40;
constexpr double kMaxQuantity = 1e40;

}  // namespace

std::optional<DecimalParts> SplitDecimal(std::string_view text) {
  size_t i = 0;
  DecimalParts out;
  if (i < text.size() && (text[i] == '+' || text[i] == '-')) {
    out.negative = text[i] == '-';
    ++i;
  }
  std::string digits;
  int64_t whole_digits = 0;
  bool point = false;
  for (; i < text.size(); ++i) {
    if (IsDigit(text[i])) {
      digits += text[i];
      if (!point) ++whole_digits;
    } else if (text[i] == '.' && !point) {
      point = true;
    } else {
      break;
    }
  }
  if (digits.empty()) return std::nullopt;
  int64_t exponent = 0;
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    const bool negative = i < text.size() && text[i] == '-';
    if (i < text.size() && (text[i] == '+' || text[i] == '-')) ++i;
    const size_t start = i;
    for (; i < text.size() && IsDigit(text[i]); ++i) {
      exponent = std::min<int64_t>(exponent * 10 + (text[i] - '0'), 1'000'000);
    }
    if (i == start) return std::nullopt;
    if (negative) exponent = -exponent;
  }
  if (i != text.size()) return std::nullopt;

  // digits × 10^(point_at − digits.size()): point_at digits stand before the decimal point.
  const size_t lead = digits.find_first_not_of('0');
  if (lead == std::string::npos) return DecimalParts{};  // zero, whatever its sign
  digits.erase(0, lead);
  out.point_at = whole_digits + exponent - static_cast<int64_t>(lead);
  while (digits.back() == '0') digits.pop_back();
  out.digits = std::move(digits);
  return out;
}

std::optional<std::string> PlainDecimal(std::string_view text) {
  std::optional<DecimalParts> parts = SplitDecimal(text);
  if (!parts) return std::nullopt;
  if (parts->digits.empty()) return "0";
  const std::string sign = parts->negative ? "-" : "";
  const std::string& digits = parts->digits;
  int64_t point_at = parts->point_at;
  if (point_at < -kMaxPlainDigits) return "0";
  point_at = std::min(point_at, kMaxPlainDigits + 1);
  const auto size = static_cast<int64_t>(digits.size());
  if (point_at <= 0) {
    return sign + "0." + std::string(static_cast<size_t>(-point_at), '0') + digits;
  }
  if (point_at >= size)
    return sign + digits + std::string(static_cast<size_t>(point_at - size), '0');
  const auto split = static_cast<size_t>(point_at);
  return sign + digits.substr(0, split) + "." + digits.substr(split);
}

bool SameDecimal(std::string_view a, std::string_view b) {
  const std::optional<DecimalParts> x = SplitDecimal(a);
  const std::optional<DecimalParts> y = SplitDecimal(b);
  return x && y && x->negative == y->negative && x->digits == y->digits &&
         x->point_at == y->point_at;
}

std::optional<std::string> FocusRow::Get(std::string_view column) {
  std::optional<size_t> index = table_.Column(column);
  if (!index) return std::nullopt;
  const std::string& raw = CsvTable::Field(record_, *index);
  if (raw == "NULL" || raw == "null") {
    Note(kQuirkLiteralNull);
    return std::nullopt;
  }
  if (raw.empty()) {
    // An empty field is how strict CSV writes a null; it is a quirk only in a file that
    // otherwise writes NULL (there it is a non-conformant empty string).
    if (literal_nulls_) Note(kQuirkEmptyNull);
    return std::nullopt;
  }
  return raw;
}

std::optional<std::string> FocusRow::Number(std::string_view column) {
  std::optional<std::string> text = Get(column);
  if (!text) return std::nullopt;
  // Padding is unambiguous; a separator or a symbol is not (is "1,500" 1500 or 1.5?).
  const std::string_view trimmed = Trim(*text);
  if (trimmed.size() != text->size() && !trimmed.empty()) {
    Note(kQuirkPaddedNumber);
    return std::string(trimmed);
  }
  return text;
}

namespace {

/// `plain` (PlainDecimal's form, within Money's range) to 18 decimals.
FineAmount FineFromPlain(const std::string& plain) {
  const size_t dot = plain.find('.');
  const std::string whole = plain.substr(0, dot);
  const std::string fraction = dot == std::string::npos ? "" : plain.substr(dot + 1);
  FineAmount fine;
  // At most six decimals, which Money::Parse reads exactly, without rounding.
  const std::string micros_text = fraction.empty() ? whole : whole + "." + fraction.substr(0, 6);
  fine.micros = Money::Parse(micros_text).value_or(Money()).micros();
  if (fraction.size() > 6) {
    std::string rest = fraction.substr(6, 12);
    rest.resize(12, '0');
    int64_t attos = 0;
    std::from_chars(rest.data(), rest.data() + rest.size(), attos);
    fine.attos = plain.front() == '-' ? -attos : attos;
  }
  return fine;
}

}  // namespace

std::optional<Money> FocusRow::Amount(std::string_view column, bool required, FineAmount* fine) {
  const std::optional<std::string> text = Number(column);
  if (!text) {
    if (required) Problem(column, fmt::format("{} is null", column));
    return std::nullopt;
  }
  const std::optional<std::string> plain = PlainDecimal(*text);
  if (!plain) {
    Problem(column, fmt::format("{} '{}' is not an amount (a FOCUS number has no grouping "
                                "separators or currency symbols)",
                                column, *text));
    return std::nullopt;
  }
  Result<Money> money = Money::Parse(*plain);
  if (!money) {
    Problem(column, fmt::format("{} '{}' is beyond ±9 trillion dollars", column, *text));
    return std::nullopt;
  }
  if (fine != nullptr) *fine = FineFromPlain(*plain);
  return *money;
}

std::optional<double> FocusRow::Quantity(std::string_view column) {
  const std::optional<std::string> text = Number(column);
  if (!text) return std::nullopt;
  const std::optional<std::string> plain = PlainDecimal(*text);
  if (!plain) {
    Problem(column, fmt::format("{} '{}' is not a number", column, Abbreviate(*text)));
    return std::nullopt;
  }
  // The ledger keeps a quantity as a double and reads it back as plain decimal text, which
  // stops at 10^40: the number must come back as written. Past that (1e41, 1e309), past the
  // double's precision (1.00000000000000001) or below its smallest value (1e-400), it would
  // be kept as another number.
  Result<double> value = ParseDouble(*text);
  const bool exact =
      value && std::abs(*value) < kMaxQuantity && SameDecimal(fmt::format("{}", *value), *text);
  if (!exact) {
    Problem(column, fmt::format("{} '{}' cannot be stored exactly (a quantity is kept to about 15 "
                                "significant digits, below 1e40){}",
                                column, Abbreviate(*text),
                                value ? fmt::format("; it would be kept as {}", *value) : ""));
    return std::nullopt;
  }
  return *value;
}

std::optional<Timestamp> FocusRow::Time(std::string_view column) {
  const std::optional<std::string> text = Get(column);
  if (!text) {
    Problem(column, fmt::format("{} is null", column));
    return std::nullopt;
  }
  Result<Timestamp> t = ParseTimestamp(*text);
  if (!t) {
    Problem(column, fmt::format("{}: {}", column, t.error().message));
    return std::nullopt;
  }
  if (text->find(' ') != std::string::npos) Note(kQuirkSpaceTime);
  return *t;
}

std::optional<std::string> FocusRow::Allowed(std::string_view column,
                                             std::initializer_list<std::string_view> allowed) {
  const std::optional<std::string> v = Get(column);
  if (!v) return std::nullopt;
  for (std::string_view a : allowed) {
    if (*v == a) return v;
    if (ToLower(*v) == ToLower(a)) {
      Note(kQuirkCase);
      return std::string(a);
    }
  }
  return std::nullopt;
}

void FocusRow::Problem(std::string_view column, const std::string& message) {
  summary_.skipped.push_back(fmt::format("{}: {}", Where(column), message));
  bad_ = true;
}

void FocusRow::Note(const char* quirk) {
  if (noted_.insert(quirk).second) summary_.repaired[quirk] += 1;
}

std::string FocusRow::Where(std::string_view column) const {
  std::optional<size_t> index = table_.Column(column);
  return table_.Where(record_, index.value_or(0));
}

}  // namespace frugal::ledger
