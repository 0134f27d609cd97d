// A program outside pathlock's tree that links the etcd lock (the component
// etcd). Without a cluster it checks what needs none: a lock with no
// endpoint is refused, a folder's subtree is one key range that skips a
// sibling sharing its prefix, and a stale fencing token is refused.
#include <pathlock/etcd/etcd_path_lock.hpp>
#include <pathlock/etcd/fencing.hpp>

#include <cstdio>
#include <stdexcept>

int main() {
  try {
    pathlock::etcd::EtcdPathLock lock(pathlock::etcd::EtcdPathLockOptions{});
    return 1;  // no endpoint: must throw
  } catch (const std::invalid_argument&) {
  }
  const auto folder = pathlock::etcd::subtree_range("p/", pathlock::model::Path::parse("/a/b"));
  const auto sibling =
      pathlock::etcd::record_key("p/", pathlock::model::Path::parse("/a/bc"), pathlock::etcd::RecordMode::kWrite, "1");
  const bool sibling_outside = sibling < folder.begin || sibling >= folder.end;
  pathlock::etcd::TokenFence fence;
  const bool stale_refused = fence.admit("o", 7) == pathlock::etcd::FenceVerdict::kAccepted &&
                             fence.admit("o", 5) == pathlock::etcd::FenceVerdict::kStale;
  std::printf("etcd component: sibling outside the folder's range: %s, stale token refused: %s\n",
              sibling_outside ? "yes" : "no", stale_refused ? "yes" : "no");
  return sibling_outside && stale_refused ? 0 : 1;
}
