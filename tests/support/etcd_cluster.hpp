#pragma once
// A throwaway etcd cluster on loopback for the tests labelled etcd: members
// on free ports, data in a temporary folder, elections after a second
// without a leader (heartbeat 100 ms: leases of 2 s are allowed, and a
// loaded machine does not trigger elections), stopped and removed when
// destroyed. The etcd binary is $PATHLOCK_ETCD or etcd on the PATH
// (scripts/install-deps.sh installs Debian's etcd-server).

#include <sys/types.h>

#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

namespace pathlock::testing_support {

class EtcdCluster {
 public:
  // Starts `members` members and waits until the cluster answers a
  // linearizable read; throws std::runtime_error with the members' log tails
  // if it does not within 20 s.
  explicit EtcdCluster(int members = 3);
  ~EtcdCluster();
  EtcdCluster(const EtcdCluster&) = delete;
  EtcdCluster& operator=(const EtcdCluster&) = delete;

  // "http://127.0.0.1:port", one per member still running.
  std::vector<std::string> client_urls() const;
  std::string client_urls_joined() const;  // comma-separated
  int size() const noexcept { return static_cast<int>(members_.size()); }
  // SIGKILL, as a crash: the member stays down.
  void kill_member(int index);
  std::string log_tail(int index) const;

 private:
  struct Member {
    std::string name;
    int client_port = 0;
    int peer_port = 0;
    std::string data_dir;
    std::string log_file;
    pid_t pid = -1;
  };
  // A member could not bind a port found free a moment before.
  struct PortTaken : std::runtime_error {
    using std::runtime_error::runtime_error;
  };
  // One attempt: new ports, the members started, one linearizable read.
  // Throws PortTaken (everything stopped) if a member's port was taken.
  void start_cluster(int members);
  void start(Member& m, const std::string& initial_cluster, const std::string& token);
  void stop_all() noexcept;
  std::string root_;
  std::vector<Member> members_;
};

// Spawns `argv` with stdin and stdout as pipes; for the client processes of
// the crash and pause tests.
struct ChildProcess {
  pid_t pid = -1;
  int stdin_fd = -1;
  int stdout_fd = -1;
  static ChildProcess spawn(const std::vector<std::string>& argv);
  // The next line of its stdout ("" at end of file or after `timeout_ms`).
  std::string read_line(int timeout_ms);
  void write_line(const std::string& line);
  void signal(int sig);
  // Waits for it to exit; its exit status, or -1 if it was killed by a signal.
  int wait();
  ChildProcess() = default;
  ChildProcess(ChildProcess&& other) noexcept;
  ChildProcess& operator=(ChildProcess&&) = delete;
  ChildProcess(const ChildProcess&) = delete;
  ~ChildProcess();

 private:
  std::string buffered_;
};

// `n` distinct TCP ports on 127.0.0.1, each free a moment ago.
std::vector<int> free_loopback_ports(std::size_t n);

}  // namespace pathlock::testing_support
