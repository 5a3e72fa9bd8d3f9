// JSON messages with an optional descriptor over SOCK_SEQPACKET sockets, and sealed memory files.
#include "core/fd_messages.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/error.h"

namespace ptxbench {
namespace {

std::string errno_text() { return std::strerror(errno); }

constexpr unsigned kSeals = F_SEAL_SEAL | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE;

}  // namespace

void UniqueFd::reset(int fd) {
  if (fd_ >= 0) ::close(fd_);
  fd_ = fd;
}

std::pair<UniqueFd, UniqueFd> seqpacket_pair() {
  int fds[2];
  if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, fds) != 0)
    fail("socketpair(SOCK_SEQPACKET): " + errno_text());
  return {UniqueFd(fds[0]), UniqueFd(fds[1])};
}

void send_message(int socket, const json& message, int fd) {
  const std::string text = message.dump();
  if (text.size() > kMaxFdMessageBytes) fail("message of " + std::to_string(text.size()) + " bytes is over the limit");
  iovec iov{const_cast<char*>(text.data()), text.size()};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
  if (fd >= 0) {
    msg.msg_control = control;
    msg.msg_controllen = sizeof control;
    cmsghdr* c = CMSG_FIRSTHDR(&msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int));
    std::memcpy(CMSG_DATA(c), &fd, sizeof(int));
  }
  ssize_t n;
  do n = ::sendmsg(socket, &msg, MSG_NOSIGNAL);
  while (n < 0 && errno == EINTR);
  if (n < 0) fail("sendmsg: " + errno_text());
  if (size_t(n) != text.size())
    fail("sendmsg sent " + std::to_string(n) + " of " + std::to_string(text.size()) + " bytes");
}

std::optional<ReceivedMessage> receive_message(int socket) {
  std::string buf(kMaxFdMessageBytes + 1, '\0');
  iovec iov{buf.data(), buf.size()};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * 4)] = {};
  msg.msg_control = control;
  msg.msg_controllen = sizeof control;
  ssize_t n;
  do n = ::recvmsg(socket, &msg, MSG_CMSG_CLOEXEC);
  while (n < 0 && errno == EINTR);
  if (n < 0) fail("recvmsg: " + errno_text());
  ReceivedMessage r;
  int count = 0;
  for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
    if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) continue;
    const size_t k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
    for (size_t i = 0; i < k; ++i) {
      int fd;
      std::memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
      if (count++ == 0) r.fd.reset(fd);
      else ::close(fd);
    }
  }
  if (n == 0 && count == 0) return std::nullopt;  // SOCK_SEQPACKET: the peer closed
  if (msg.msg_flags & (MSG_TRUNC | MSG_CTRUNC))
    fail("a message over " + std::to_string(kMaxFdMessageBytes) + " bytes, or too many descriptors");
  if (count > 1) fail("a message with " + std::to_string(count) + " descriptors (one at most)");
  buf.resize(size_t(n));
  json j = json::parse(buf, nullptr, false);
  if (j.is_discarded() || !j.is_object()) fail("a message that is not a JSON object");
  r.message = std::move(j);
  return r;
}

UniqueFd sealed_memory_file(const std::string& name, size_t bytes, void (*fill)(void*, size_t, void*), void* ctx) {
  UniqueFd fd(::memfd_create(name.c_str(), MFD_CLOEXEC | MFD_ALLOW_SEALING));
  if (!fd) fail("memfd_create: " + errno_text());
  if (::ftruncate(fd.get(), off_t(bytes)) != 0)
    fail("ftruncate of a memory file to " + std::to_string(bytes) + " bytes: " + errno_text());
  if (bytes) {
    void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd.get(), 0);
    if (p == MAP_FAILED) fail("mmap of a memory file: " + errno_text());
    try {
      fill(p, bytes, ctx);
    } catch (...) {
      ::munmap(p, bytes);
      throw;
    }
    ::munmap(p, bytes);  // F_SEAL_WRITE needs no writable mapping left
  }
  if (::fcntl(fd.get(), F_ADD_SEALS, kSeals) != 0) fail("sealing a memory file: " + errno_text());
  return fd;
}

std::string why_not_sealed(int fd, size_t bytes) {
  const int seals = ::fcntl(fd, F_GET_SEALS);
  if (seals < 0) return "not a memory file that takes seals (" + errno_text() + ")";
  if ((unsigned(seals) & kSeals) != kSeals) return "a memory file that can still be written, grown or shrunk";
  struct stat st {};
  if (::fstat(fd, &st) != 0) return "fstat: " + errno_text();
  if (size_t(st.st_size) != bytes)
    return "a memory file of " + std::to_string(st.st_size) + " bytes where " + std::to_string(bytes) +
           " were announced";
  return "";
}

ReadOnlyMapping::ReadOnlyMapping(int fd, size_t bytes) : bytes_(bytes) {
  if (!bytes) return;
  // Populated at once: faulting hundreds of MB in page by page during the copy to the GPU took
  // longer than computing the reference (H200 bench).
  data_ = ::mmap(nullptr, bytes, PROT_READ, MAP_SHARED | MAP_POPULATE, fd, 0);
  if (data_ == MAP_FAILED) {
    data_ = nullptr;
    fail("read-only mmap of " + std::to_string(bytes) + " bytes: " + errno_text());
  }
}

ReadOnlyMapping::~ReadOnlyMapping() {
  if (data_) ::munmap(data_, bytes_);
}

}  // namespace ptxbench
