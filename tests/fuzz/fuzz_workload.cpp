// libFuzzer: workload files and replay schedules. Any input is accepted or
// rejected with an InputError; nothing else may escape.
#include <cstdint>
#include <string>

#include "pathlock/model/error.hpp"
#include "pathlock/sim/workload.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const auto w = pathlock::sim::parse_workload(text, "fuzz", "/nonexistent");
    (void)pathlock::sim::to_json(w).dump();
  } catch (const pathlock::model::InputError&) {
  }
  try {
    const auto j = nlohmann::json::parse(text);
    (void)pathlock::sim::schedule_from_json(j, "fuzz");
  } catch (const pathlock::model::InputError&) {
  } catch (const nlohmann::json::parse_error&) {
  } catch (const nlohmann::json::out_of_range&) {
  }
  return 0;
}
