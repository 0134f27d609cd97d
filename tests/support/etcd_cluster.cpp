#include "support/etcd_cluster.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "pathlock/etcd/client.hpp"

extern char** environ;

namespace pathlock::testing_support {
namespace fs = std::filesystem;

std::vector<int> free_loopback_ports(std::size_t n) {
  // Every probe's socket stays bound until all are: the kernel hands a
  // closed probe's port out again, and two members given one port fail
  // to start ("duplicate url"; probes closed one at a time repeat a port
  // a few times in 400).
  struct Probes {
    std::vector<int> fds;
    ~Probes() {
      for (const int fd : fds) ::close(fd);
    }
  } probes;
  probes.fds.reserve(n);  // a socket is never left unowned by a failed push_back
  std::vector<int> ports;
  for (std::size_t i = 0; i < n; ++i) {
    const auto fail = [&](const char* call) {
      return std::runtime_error(std::string("free_loopback_ports: ") + call + " failed after " + std::to_string(i) +
                                " of " + std::to_string(n) + " ports");
    };
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) throw fail("socket()");
    probes.fds.push_back(fd);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = 0;
    socklen_t len = sizeof addr;
    if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
      throw fail("bind()");
    }
    ports.push_back(ntohs(addr.sin_port));
  }
  return ports;
}

namespace {

std::string etcd_binary() {
  if (const char* env = std::getenv("PATHLOCK_ETCD"); env != nullptr && *env != '\0') return env;
  for (const char* dir : {"/usr/bin", "/usr/local/bin", "/bin"}) {
    const fs::path p = fs::path(dir) / "etcd";
    if (fs::exists(p)) return p.string();
  }
  throw std::runtime_error("etcd not found (set PATHLOCK_ETCD, or run scripts/install-deps.sh to install etcd-server)");
}

pid_t spawn_process(const std::vector<std::string>& argv, posix_spawn_file_actions_t* actions) {
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = -1;
  const int rc = posix_spawn(&pid, args[0], actions, nullptr, args.data(), environ);
  if (rc != 0) throw std::runtime_error("posix_spawn " + argv[0] + " failed: " + std::to_string(rc));
  return pid;
}

}  // namespace

EtcdCluster::EtcdCluster(int members) {
  // A port found free can be taken before etcd binds it (another test's
  // cluster or client, under ctest -j): such a start is retried on new ports.
  constexpr int kAttempts = 4;
  for (int attempt = 1;; ++attempt) {
    try {
      start_cluster(members);
      return;
    } catch (const PortTaken& e) {
      if (attempt == kAttempts) {
        throw std::runtime_error("etcd cluster did not start: a port was taken on each of " +
                                 std::to_string(kAttempts) + " attempts; last: " + e.what());
      }
    }
  }
}

void EtcdCluster::start_cluster(int members) {
  members_.clear();
  root_ = (fs::temp_directory_path() / ("pathlock-etcd-" + std::to_string(::getpid()) + "-" +
                                        std::to_string(std::chrono::steady_clock::now().time_since_epoch().count())))
              .string();
  fs::create_directories(root_);
  std::string initial_cluster;
  const std::vector<int> ports = free_loopback_ports(2 * static_cast<std::size_t>(members));
  for (int i = 0; i < members; ++i) {
    Member m;
    m.name = "m" + std::to_string(i);
    m.client_port = ports[2 * static_cast<std::size_t>(i)];
    m.peer_port = ports[2 * static_cast<std::size_t>(i) + 1];
    m.data_dir = root_ + "/" + m.name;
    m.log_file = root_ + "/" + m.name + ".log";
    if (!initial_cluster.empty()) initial_cluster += ",";
    initial_cluster += m.name + "=http://127.0.0.1:" + std::to_string(m.peer_port);
    members_.push_back(std::move(m));
  }
  const std::string token = "pathlock-" + fs::path(root_).filename().string();
  try {
    for (auto& m : members_) start(m, initial_cluster, token);
    etcd::Client client({.endpoints = client_urls(),
                         .call_timeout = std::chrono::milliseconds(1000),
                         .unavailable_after = std::chrono::milliseconds(20000)});
    client.call("kv/range", {{"key", etcd::base64_encode("pathlock-health")}});
    // A quorum answers even with one member down: each must still run.
    for (auto& m : members_) {
      if (::waitpid(m.pid, nullptr, WNOHANG) == m.pid) {
        m.pid = -1;
        throw std::runtime_error(m.name + " exited");
      }
    }
  } catch (const std::exception& e) {
    std::string logs;
    for (int i = 0; i < size(); ++i) logs += "\n--- " + members_[static_cast<std::size_t>(i)].name + ":\n" + log_tail(i);
    stop_all();
    if (logs.find("address already in use") != std::string::npos) throw PortTaken(e.what() + logs);
    throw std::runtime_error(std::string("etcd cluster did not start: ") + e.what() + logs);
  }
}

void EtcdCluster::start(Member& m, const std::string& initial_cluster, const std::string& token) {
  const std::string client_url = "http://127.0.0.1:" + std::to_string(m.client_port);
  const std::string peer_url = "http://127.0.0.1:" + std::to_string(m.peer_port);
  const std::vector<std::string> argv = {etcd_binary(),
                                         "--name", m.name,
                                         "--data-dir", m.data_dir,
                                         "--listen-client-urls", client_url,
                                         "--advertise-client-urls", client_url,
                                         "--listen-peer-urls", peer_url,
                                         "--initial-advertise-peer-urls", peer_url,
                                         "--initial-cluster", initial_cluster,
                                         "--initial-cluster-state", "new",
                                         "--initial-cluster-token", token,
                                         "--heartbeat-interval", "100",
                                         "--election-timeout", "1000",
                                         "--logger", "zap",
                                         "--log-level", "warn"};
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, m.log_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  m.pid = spawn_process(argv, &actions);
  posix_spawn_file_actions_destroy(&actions);
}

EtcdCluster::~EtcdCluster() { stop_all(); }

void EtcdCluster::stop_all() noexcept {
  for (auto& m : members_) {
    if (m.pid > 0) {
      ::kill(m.pid, SIGKILL);
      ::waitpid(m.pid, nullptr, 0);
      m.pid = -1;
    }
  }
  std::error_code ignored;
  fs::remove_all(root_, ignored);
}

std::vector<std::string> EtcdCluster::client_urls() const {
  std::vector<std::string> urls;
  for (const auto& m : members_) {
    if (m.pid > 0) urls.push_back("http://127.0.0.1:" + std::to_string(m.client_port));
  }
  return urls;
}

std::string EtcdCluster::client_urls_joined() const {
  std::string out;
  for (const auto& u : client_urls()) out += (out.empty() ? "" : ",") + u;
  return out;
}

void EtcdCluster::kill_member(int index) {
  auto& m = members_.at(static_cast<std::size_t>(index));
  if (m.pid <= 0) return;
  ::kill(m.pid, SIGKILL);
  ::waitpid(m.pid, nullptr, 0);
  m.pid = -1;
}

std::string EtcdCluster::log_tail(int index) const {
  std::ifstream in(members_.at(static_cast<std::size_t>(index)).log_file);
  std::stringstream all;
  all << in.rdbuf();
  const std::string text = all.str();
  return text.size() > 2000 ? text.substr(text.size() - 2000) : text;
}

ChildProcess ChildProcess::spawn(const std::vector<std::string>& argv) {
  int in[2];
  int out[2];
  if (::pipe(in) != 0 || ::pipe(out) != 0) throw std::runtime_error("pipe() failed");
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in[0], 0);
  posix_spawn_file_actions_adddup2(&actions, out[1], 1);
  posix_spawn_file_actions_addclose(&actions, in[1]);
  posix_spawn_file_actions_addclose(&actions, out[0]);
  ChildProcess child;
  child.pid = spawn_process(argv, &actions);
  posix_spawn_file_actions_destroy(&actions);
  ::close(in[0]);
  ::close(out[1]);
  child.stdin_fd = in[1];
  child.stdout_fd = out[0];
  return child;
}

ChildProcess::ChildProcess(ChildProcess&& other) noexcept
    : pid(std::exchange(other.pid, -1)),
      stdin_fd(std::exchange(other.stdin_fd, -1)),
      stdout_fd(std::exchange(other.stdout_fd, -1)),
      buffered_(std::move(other.buffered_)) {}

std::string ChildProcess::read_line(int timeout_ms) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  for (;;) {
    if (const auto nl = buffered_.find('\n'); nl != std::string::npos) {
      std::string line = buffered_.substr(0, nl);
      buffered_.erase(0, nl + 1);
      return line;
    }
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return {};
    pollfd p{stdout_fd, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) continue;
    char buf[512];
    const ssize_t n = ::read(stdout_fd, buf, sizeof buf);
    if (n <= 0) return {};
    buffered_.append(buf, static_cast<std::size_t>(n));
  }
}

void ChildProcess::write_line(const std::string& line) {
  const std::string text = line + "\n";
  if (::write(stdin_fd, text.data(), text.size()) != static_cast<ssize_t>(text.size())) {
    throw std::runtime_error("write to child failed");
  }
}

void ChildProcess::signal(int sig) { ::kill(pid, sig); }

int ChildProcess::wait() {
  int status = 0;
  if (pid <= 0) return -1;
  ::waitpid(pid, &status, 0);
  pid = -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

ChildProcess::~ChildProcess() {
  if (pid > 0) {
    ::kill(pid, SIGKILL);
    ::waitpid(pid, nullptr, 0);
  }
  if (stdin_fd >= 0) ::close(stdin_fd);
  if (stdout_fd >= 0) ::close(stdout_fd);
}

}  // namespace pathlock::testing_support
