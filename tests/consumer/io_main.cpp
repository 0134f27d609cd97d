// A program outside pathlock's tree that reads a scheme file (here, the text
// a built-in scheme exports to) and locks with the scheme it describes.
#include <pathlock/io/scheme_file.hpp>
#include <pathlock/pathlock.hpp>

#include <cstdio>
#include <string>

int main() {
  const std::string text = pathlock::io::scheme_to_json(pathlock::path_rw_scheme()).dump(2);
  const pathlock::Scheme scheme = pathlock::io::parse_scheme(text, "exported path-rw");
  pathlock::PathLock lock(scheme);  // the lock keeps a reference: `scheme` outlives it
  auto guard = lock.write(pathlock::Path::parse("/photos/2024"));
  std::printf("scheme file read back: %s, write %s\n", std::string(lock.scheme().name()).c_str(),
              std::string(pathlock::to_string(guard.status())).c_str());
  return guard.owns_lock() ? 0 : 1;
}
