#pragma once
// The store's half of the fencing contract (etcd_path_lock.hpp, FENCING): a
// write carries its guard's fencing_token(); the store accepts it only if
// the token is at least the largest it has accepted for that object. A
// holder whose lease ran out while it was paused carries a smaller token
// than whoever holds a conflicting lock since, so its late writes are
// refused. Keep this state where the store applies writes (an S3 proxy, a
// metadata service), in one place per object. Thread-safe.
//
// The guarantee is per object: a stale write is refused for an object that a
// newer holder wrote. A lock covers a whole subtree, and a newer holder may
// not touch every object a stale one writes (a folder removed before the
// stale holder's late write of a new object below it). For such stores, have
// each folder operation also admit its token on the folder itself and on
// its ancestors' markers, or keep data that must be fenced in etcd
// (EtcdPathLock::fenced_put, which checks that the lock is still held).

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <string_view>

namespace pathlock::etcd {

enum class FenceVerdict : std::uint8_t {
  kAccepted,  // the token is the largest seen for the object (or equal to it)
  kStale,     // a larger token was accepted for the object: refuse the write
};

class TokenFence {
 public:
  FenceVerdict admit(std::string_view object, std::int64_t token) {
    std::lock_guard lock(mu_);
    auto [it, inserted] = largest_.try_emplace(std::string(object), token);
    if (inserted || token >= it->second) {
      it->second = token;
      return FenceVerdict::kAccepted;
    }
    return FenceVerdict::kStale;
  }

 private:
  std::mutex mu_;
  std::map<std::string, std::int64_t, std::less<>> largest_;  // guarded by mu_
};

}  // namespace pathlock::etcd
