#pragma once
// A small disk for full-disk tests: a tmpfs of a given size mounted at a folder (root only; a
// test skips when `mounted()` is false), filled to its last byte and freed again.

#include <sys/mount.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace frugal::testing {

/// A tmpfs of `size` ("size=1m") mounted at `dir`, unmounted when it goes away.
class SmallDisk {
 public:
  SmallDisk(const std::filesystem::path& dir, const char* size) : dir_(dir) {
    std::filesystem::create_directories(dir_);
    mounted_ = ::mount("tmpfs", dir_.c_str(), "tmpfs", 0, size) == 0;
  }
  ~SmallDisk() {
    if (mounted_) ::umount2(dir_.c_str(), MNT_DETACH);
  }
  SmallDisk(const SmallDisk&) = delete;
  SmallDisk& operator=(const SmallDisk&) = delete;
  [[nodiscard]] bool mounted() const { return mounted_; }

  /// Writes a file of its own until the disk has no byte left.
  void Fill() const {
    std::ofstream fill(dir_ / "fill", std::ios::binary);
    const std::string block(512, 'x');
    while (fill.write(block.data(), static_cast<std::streamsize>(block.size())) && fill.flush()) {
    }
  }
  /// Frees what Fill took.
  void Free() const { std::filesystem::remove(dir_ / "fill"); }

 private:
  std::filesystem::path dir_;
  bool mounted_ = false;
};

}  // namespace frugal::testing
