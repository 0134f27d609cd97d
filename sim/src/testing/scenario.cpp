#include "pathlock/testing/scenario.hpp"

#include <fmt/format.h>

#include <sstream>
#include <stdexcept>

#include "pathlock/model/error.hpp"
#include "pathlock/model/path.hpp"

namespace pathlock::testing {

namespace {

std::string_view trim(std::string_view text) {
  const auto first = text.find_first_not_of(" \t\n");
  if (first == std::string_view::npos) return {};
  const auto last = text.find_last_not_of(" \t\n");
  return text.substr(first, last - first + 1);
}

std::vector<std::string_view> split(std::string_view text, char separator) {
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  while (true) {
    const auto end = text.find(separator, start);
    parts.push_back(trim(text.substr(start, end == std::string_view::npos ? end : end - start)));
    if (end == std::string_view::npos) return parts;
    start = end + 1;
  }
}

model::Operation parse_operation(std::string_view text) {
  std::vector<std::string> words;
  std::istringstream in{std::string(text)};
  for (std::string word; in >> word;) words.push_back(word);
  if (words.empty()) throw std::invalid_argument("an operation is empty: expected '<operation> <path> [<path>]'");
  const auto kind = model::op_kind_from_string(words[0]);
  if (!kind) {
    throw std::invalid_argument(fmt::format("operation '{}': unknown '{}' (read, write, delete, rename or copy)",
                                            text, words[0]));
  }
  std::vector<model::Path> paths;
  try {
    for (std::size_t i = 1; i < words.size(); ++i) paths.push_back(model::Path::parse(words[i]));
    return model::Operation::make(*kind, std::move(paths));
  } catch (const model::InputError& e) {
    throw std::invalid_argument(fmt::format("operation '{}': {}", text, e.what()));
  }
}

}  // namespace

std::size_t Scenario::operation_count() const noexcept {
  std::size_t count = 0;
  for (const auto& task : tasks) count += task.size();
  return count;
}

std::string operation_text(const model::Operation& operation) {
  std::string text{model::to_string(operation.kind)};
  text += ' ';
  text += operation.source.str();
  if (operation.target) {
    text += ' ';
    text += operation.target->str();
  }
  return text;
}

std::string Scenario::to_string() const {
  std::string text;
  for (std::size_t t = 0; t < tasks.size(); ++t) {
    if (t > 0) text += "; ";
    text += fmt::format("T{}: ", t);
    for (std::size_t i = 0; i < tasks[t].size(); ++i) {
      if (i > 0) text += ", ";
      text += operation_text(tasks[t][i]);
    }
  }
  return text;
}

Scenario Scenario::parse(std::string_view text) {
  Scenario scenario;
  for (const std::string_view part : split(text, ';')) {
    const std::string label = fmt::format("T{}:", scenario.tasks.size());
    if (part.substr(0, label.size()) != label) {
      throw std::invalid_argument(fmt::format("scenario part '{}' should start with '{}'", part, label));
    }
    if (scenario.tasks.size() == kMaxTasks) {
      throw std::invalid_argument(fmt::format("a scenario has at most {} tasks", kMaxTasks));
    }
    auto& task = scenario.tasks.emplace_back();
    for (const std::string_view operation : split(part.substr(label.size()), ',')) {
      if (task.size() == kMaxOperationsPerTask) {
        throw std::invalid_argument(fmt::format("a task has at most {} operations", kMaxOperationsPerTask));
      }
      task.push_back(parse_operation(operation));
    }
  }
  return scenario;
}

std::ostream& operator<<(std::ostream& out, const Scenario& scenario) { return out << scenario.to_string(); }

}  // namespace pathlock::testing
