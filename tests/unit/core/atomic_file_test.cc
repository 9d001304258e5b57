#include "frugal/core/atomic_file.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <csignal>

#include "frugal/core/file_head.h"
#include "support/test_support.h"

namespace frugal {
namespace {

TEST(AtomicFile, TargetAppearsOnlyOnCommit) {
  testing::TempDir dir;
  const auto target = dir / "sub" / "out.txt";
  {
    AtomicFile file(target);
    ASSERT_TRUE(file.Write("hello ").has_value());
    ASSERT_TRUE(file.Write("world").has_value());
    EXPECT_FALSE(std::filesystem::exists(target));
    ASSERT_TRUE(file.Commit().has_value());
  }
  EXPECT_EQ(*ReadFile(target), "hello world");
}

TEST(AtomicFile, ABareFileNameIsWrittenInTheWorkingDirectory) {
  testing::TempDir dir;
  const auto previous = std::filesystem::current_path();
  std::filesystem::current_path(dir.path());
  const Result<void> written = WriteFileAtomically("out.txt", "bare");
  std::filesystem::current_path(previous);
  ASSERT_TRUE(written.has_value()) << written.error().message;
  EXPECT_EQ(*ReadFile(dir / "out.txt"), "bare");
}

TEST(AtomicFile, AbandonedWriteLeavesOldContentsAndNoTemporary) {
  testing::TempDir dir;
  const auto target = dir / "out.txt";
  ASSERT_TRUE(WriteFileAtomically(target, "old").has_value());
  {
    AtomicFile file(target);
    ASSERT_TRUE(file.Write("new, half-written").has_value());
  }
  EXPECT_EQ(*ReadFile(target), "old");
  size_t entries = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir.path())) ++entries;
  EXPECT_EQ(entries, 1u);
}

TEST(AtomicFile, WriteFailureKeepsOldContents) {
  testing::TempDir dir;
  const auto target = dir / "out.txt";
  ASSERT_TRUE(WriteFileAtomically(target, "old").has_value());
  // A file-size limit makes write() fail part-way, as a full disk does.
  rlimit old_limit{};
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &old_limit), 0);
  auto old_handler = std::signal(SIGXFSZ, SIG_IGN);
  rlimit small = old_limit;
  small.rlim_cur = 4096;
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &small), 0);
  Result<void> r = WriteFileAtomically(target, std::string(1 << 16, 'x'));
  ::setrlimit(RLIMIT_FSIZE, &old_limit);
  std::signal(SIGXFSZ, old_handler);
  ASSERT_FALSE(r.has_value());
  EXPECT_NE(r.error().message.find("write failed"), std::string::npos) << r.error().message;
  EXPECT_EQ(*ReadFile(target), "old");
  size_t entries = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir.path())) ++entries;
  EXPECT_EQ(entries, 1u);
}

TEST(ReadFile, MissingFileNamesIt) {
  auto r = ReadFile("/nonexistent/frugal.yaml");
  ASSERT_FALSE(r.has_value());
  EXPECT_NE(r.error().message.find("/nonexistent/frugal.yaml"), std::string::npos);
  EXPECT_EQ(r.error().code, ErrorCode::kBadInput);
}

TEST(AtomicFile, ADirectoryAtTheTargetIsBadInputBeforeAnyWrite) {
  testing::TempDir dir;
  std::filesystem::create_directories(dir / "out.csv");
  auto r = WriteFileAtomically(dir / "out.csv", "a,b\n");
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code, ErrorCode::kBadInput);
  EXPECT_NE(r.error().message.find("is a directory"), std::string::npos) << r.error().message;
  size_t entries = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir.path())) {
    (void)entry;
    ++entries;
  }
  EXPECT_EQ(entries, 1u);  // no temp file left beside it
}

TEST(ReadFile, DirectoryIsBadInputNotAnEmptyFile) {
  testing::TempDir dir;
  auto r = ReadFile(dir.path());
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code, ErrorCode::kBadInput);
  EXPECT_NE(r.error().message.find("is a directory"), std::string::npos) << r.error().message;
}

TEST(ReadFile, ADeviceIsBadInputNotAnEndlessRead) {
  // /dev/zero never ends: reading it whole would grow memory until the process is killed.
  for (const char* device : {"/dev/zero", "/dev/urandom"}) {
    auto r = ReadFile(device);
    ASSERT_FALSE(r.has_value()) << device;
    EXPECT_EQ(r.error().code, ErrorCode::kBadInput);
    EXPECT_NE(r.error().message.find(std::string(device) + ": not a regular file"),
              std::string::npos)
        << r.error().message;
  }
}

TEST(ReadFile, ANameWithANulByteIsNotAPath) {
  // A spec's `catalog: "/etc/passwd\0.yaml"`: the system would read the name up to the NUL.
  testing::TempDir dir;
  ASSERT_TRUE(WriteFileAtomically(dir / "real", "kind: Job\n").has_value());
  const std::string name = (dir / "real").string() + std::string("\0.yaml", 6);
  auto r = ReadFile(std::filesystem::path(name));
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code, ErrorCode::kBadInput);
  EXPECT_NE(r.error().message.find("not a path (it holds a NUL byte)"), std::string::npos)
      << r.error().message;
}

TEST(ReadFile, ANamedPipeNobodyWritesIsBadInputNotAWaitForever) {
  // `mkfifo f; frugal plan f`: a plain open waits for a writer that never comes.
  testing::TempDir dir;
  const std::filesystem::path fifo = dir / "spec.yaml";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  auto r = ReadFile(fifo);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code, ErrorCode::kBadInput);
  EXPECT_NE(r.error().message.find(fifo.string() + ": not a regular file"), std::string::npos)
      << r.error().message;
}

TEST(ReadFile, APipeWithAWriterIsReadToItsEnd) {
  // A shell's <(...) names a pipe whose writer is already there: it is read, not refused.
  int ends[2];
  ASSERT_EQ(::pipe(ends), 0);
  const std::string text = "kind: Job\n";
  ASSERT_EQ(::write(ends[1], text.data(), text.size()), static_cast<ssize_t>(text.size()));
  ::close(ends[1]);
  auto r = ReadFile("/proc/self/fd/" + std::to_string(ends[0]));
  ::close(ends[0]);
  ASSERT_TRUE(r.has_value()) << r.error().message;
  EXPECT_EQ(*r, text);
}

TEST(ReadFileHead, ReadsOnlyTheStartOfALongFileAndAShortOneWhole) {
  testing::TempDir dir;
  std::string text = "config_id,epoch,val\n";
  while (text.size() < 300'000) text += "17,3,0.25\n";
  ASSERT_TRUE(WriteFileAtomically(dir / "curves.csv", text).has_value());
  auto head = ReadFileHead(dir / "curves.csv", 100'000);
  ASSERT_TRUE(head.has_value()) << head.error().message;
  EXPECT_EQ(*head, text.substr(0, 100'000));
  auto whole = ReadFileHead(dir / "curves.csv", 1'000'000);
  ASSERT_TRUE(whole.has_value());
  EXPECT_EQ(*whole, text);
}

TEST(ReadFileHead, RefusesWhatReadFileRefuses) {
  testing::TempDir dir;
  const std::filesystem::path fifo = dir / "curves.csv";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  for (const std::filesystem::path& p :
       {fifo, std::filesystem::path("/dev/zero"), dir.path(), dir / "missing.csv"}) {
    auto r = ReadFileHead(p, 4096);
    ASSERT_FALSE(r.has_value()) << p;
    EXPECT_EQ(r.error().code, ErrorCode::kBadInput);
    EXPECT_NE(r.error().message.find(p.string()), std::string::npos) << r.error().message;
  }
}

TEST(AtomicFile, ATargetThatIsAPipeOrDeviceIsWrittenThroughNotReplaced) {
  // `-o /dev/stdout`, `-o /dev/null`, a named pipe: renaming a temporary over one would
  // replace the device node itself with a regular file (as root, /dev/null).
  testing::TempDir dir;
  const std::filesystem::path fifo = dir / "pipe";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const int reader = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
  ASSERT_GE(reader, 0);
  ASSERT_TRUE(WriteFileAtomically(fifo, "report\n"));
  EXPECT_TRUE(std::filesystem::is_fifo(fifo));
  char buffer[64] = {};
  const ssize_t n = ::read(reader, buffer, sizeof buffer);
  ::close(reader);
  EXPECT_EQ(std::string(buffer, n > 0 ? static_cast<size_t>(n) : 0), "report\n");
  size_t entries = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir.path())) ++entries;
  EXPECT_EQ(entries, 1u);  // no temporary left beside it
  // A pipe nobody reads is an error naming it, not a wait forever, and it stays a pipe.
  auto unread = WriteFileAtomically(fifo, "x");
  ASSERT_FALSE(unread.has_value());
  EXPECT_NE(unread.error().message.find(fifo.string()), std::string::npos)
      << unread.error().message;
  EXPECT_TRUE(std::filesystem::is_fifo(fifo));
}

}  // namespace
}  // namespace frugal
