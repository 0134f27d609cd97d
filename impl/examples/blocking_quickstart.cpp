// The README's blocking example: a folder rename, and a copy with a timeout.
#include <chrono>
#include <cstdio>

#include <pathlock/pathlock.hpp>

using pathlock::Path;

int main() {
  pathlock::PathLock lock(pathlock::path_rwa_joined_scheme());

  {  // rename photos/2024/ to archive/2024/: list, copy and delete its keys
    pathlock::Guard guard = lock.rename(Path::from_key("photos/2024"), Path::from_key("archive/2024"));
    std::printf("rename: %s, %zu locks held\n", pathlock::to_string(guard.status()).data(), guard.lock_count());

    // Build hot requests once; acquire() then allocates nothing. This copy
    // reads archive/, which the rename writes: it times out.
    const pathlock::Request copy = pathlock::copy(Path::parse("/archive"), Path::parse("/backup")).request();
    pathlock::Guard g = lock.acquire_for(copy, std::chrono::milliseconds(50));
    if (!g) std::printf("copy: %s\n", pathlock::to_string(g.status()).data());  // "timed out"
  }  // released here, last lock first

  // A request that names a malformed path throws InputError, naming it.
  try {
    (void)pathlock::write(Path::parse("photos//2024"));
  } catch (const pathlock::InputError& e) {
    std::printf("rejected: %s\n", e.what());
  }
  return lock.active_locks() == 0 ? 0 : 1;
}
