#include "pathlock/sim/runtime/choice.hpp"

#include <charconv>

namespace pathlock::sim::runtime {

bool is_preemption(const ChoicePoint& point, const Choice& choice) noexcept {
  if (point.continuation != ContinuationMode::kCurrentCanContinue) return false;
  return !(choice.kind == ChoiceKind::kRun && choice.thread == point.current);
}

std::string format_choice(const Choice& choice) {
  switch (choice.kind) {
    case ChoiceKind::kRun: return std::to_string(choice.thread);
    case ChoiceKind::kTimeout: return "T" + std::to_string(choice.thread);
    case ChoiceKind::kAllocate: return "A";
    case ChoiceKind::kFailAllocation: return "F";
  }
  return "?";
}

std::string format_schedule(std::span<const Choice> schedule) {
  std::string text;
  for (const Choice& c : schedule) {
    if (!text.empty()) text += ' ';
    text += format_choice(c);
  }
  return text;
}

namespace {
// A thread number below kMaxThreads, or nothing.
std::optional<std::uint32_t> thread_number(std::string_view digits) {
  std::uint32_t value = 0;
  const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (digits.empty() || error != std::errc{} || end != digits.data() + digits.size() || value >= kMaxThreads) {
    return std::nullopt;
  }
  return value;
}
}  // namespace

ParsedSchedule parse_schedule(std::string_view text) {
  ParsedSchedule parsed;
  std::size_t at = 0;
  while (at < text.size()) {
    if (text[at] == ' ') {
      ++at;
      continue;
    }
    const std::size_t end = std::min(text.find(' ', at), text.size());
    const std::string_view token = text.substr(at, end - at);
    const std::size_t index = parsed.choices.size();
    if (token == "A") {
      parsed.choices.push_back({ChoiceKind::kAllocate, 0});
    } else if (token == "F") {
      parsed.choices.push_back({ChoiceKind::kFailAllocation, 0});
    } else if (auto t = thread_number(token.front() == 'T' ? token.substr(1) : token)) {
      parsed.choices.push_back({token.front() == 'T' ? ChoiceKind::kTimeout : ChoiceKind::kRun, *t});
    } else {
      parsed.error = "schedule choice " + std::to_string(index) + " '" + std::string(token) +
                     "' is none of: a thread number below " + std::to_string(kMaxThreads) +
                     ", T<thread> (a timeout), A (allocation succeeds), F (allocation fails)";
      parsed.choices.clear();
      return parsed;
    }
    at = end;
  }
  return parsed;
}

}  // namespace pathlock::sim::runtime
