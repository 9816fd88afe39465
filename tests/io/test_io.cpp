// Files: atomic writes, output folders, .npy round trips and NumPy's exact bytes, checkpoints
// (round trip, corruption, truncation, another architecture).
#include <doctest/doctest.h>

#include <sys/stat.h>

#include <filesystem>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "io/atomic_file.hpp"
#include "io/checkpoint.hpp"
#include "io/npy.hpp"

using namespace empl;
namespace fs = std::filesystem;

namespace {

// A fresh folder under the system's temporary directory, removed at the end of the test.
struct TemporaryFolder {
  fs::path path;
  TemporaryFolder() {
    std::string pattern = (fs::temp_directory_path() / "empl_test_XXXXXX").string();
    path = mkdtemp(pattern.data());
  }
  ~TemporaryFolder() { fs::remove_all(path); }
  std::string file(const std::string& name) const { return (path / name).string(); }
  size_t entries() const { return static_cast<size_t>(std::distance(fs::directory_iterator(path), fs::directory_iterator())); }
};

Tensor sample(Shape shape) {
  Tensor t = Tensor::empty(shape);
  for (int64_t i = 0; i < t.numel(); ++i) t[i] = 0.25f * static_cast<float>(i) - 1.5f;
  return t;
}

}  // namespace

TEST_CASE("atomic write replaces a file whole and leaves no temporary behind") {
  TemporaryFolder folder;
  write_file_atomically(folder.file("a.txt"), "first");
  write_file_atomically(folder.file("a.txt"), "second");
  CHECK(read_file(folder.file("a.txt")) == "second");
  CHECK(folder.entries() == 1);
  CHECK_THROWS_WITH_AS(write_file_atomically(folder.file("missing/b.txt"), "x"), doctest::Contains("missing/b.txt"), Error);
  CHECK(folder.entries() == 1);
  CHECK_THROWS_WITH_AS(read_file(folder.file("none")), doctest::Contains("none"), Error);
}

TEST_CASE("an output folder is made by its first write only, a bad one is refused") {
  TemporaryFolder folder;
  {
    // Proven creatable, then removed again: a run stopped before it writes (an error, SIGTERM while
    // a checkpoint loads) leaves no folder behind, nor the parents it would have made.
    OutputDirectory out(folder.file("parent/results"));
    CHECK_FALSE(fs::exists(folder.file("parent")));
  }
  CHECK_FALSE(fs::exists(folder.file("parent")));
  {
    OutputDirectory out(folder.file("kept/sub"));
    out.write("x.csv", "a,b\n");
  }
  CHECK(read_file(folder.file("kept/sub/x.csv")) == "a,b\n");
  write_file_atomically(folder.file("plain"), "not a folder");
  CHECK_THROWS_WITH_AS(OutputDirectory(folder.file("plain")), doctest::Contains("not a directory"), Error);
  CHECK_THROWS_WITH_AS(OutputDirectory(folder.file("plain/sub")), doctest::Contains("cannot create"), Error);
  CHECK(folder.entries() == 2);  // kept, plain
  // /proc/self is a folder nobody may write into, root included: the check runs as any user.
  CHECK_THROWS_WITH_AS(OutputDirectory("/proc/self"), doctest::Contains("cannot write into"), Error);
  if (geteuid() != 0) {
    fs::create_directory(folder.file("locked"));
    chmod(folder.file("locked").c_str(), 0500);
    CHECK_THROWS_AS(OutputDirectory(folder.file("locked")), Error);
  } else {
    MESSAGE("running as root: a folder of mode 0500 is writable to root, so only /proc/self was checked");
  }
}

TEST_CASE("read_file refuses what is not a regular file before opening it, and files above its maximum") {
  TemporaryFolder folder;
  REQUIRE(mkfifo(folder.file("fifo").c_str(), 0600) == 0);  // opening it for reading would block
  CHECK_THROWS_WITH_AS(read_file(folder.file("fifo")), doctest::Contains("FIFO"), Error);
  // Nor is it written over: the rename would replace it (as root, /dev/null too) with a file.
  CHECK_THROWS_WITH_AS(write_file_atomically(folder.file("fifo"), "x"), doctest::Contains("FIFO"), Error);
  CHECK(fs::is_fifo(folder.file("fifo")));
  CHECK_THROWS_WITH_AS(read_file("/dev/zero"), doctest::Contains("/dev/zero: it is a character device"), Error);
  CHECK_THROWS_WITH_AS(read_file(folder.path.string()), doctest::Contains("directory"), Error);
  CHECK_THROWS_WITH_AS(read_file(""), doctest::Contains("empty path"), Error);
  write_file_atomically(folder.file("ten"), "0123456789");
  CHECK(read_file(folder.file("ten"), 10) == "0123456789");
  CHECK_THROWS_WITH_AS(read_file(folder.file("ten"), 9, "thing"), doctest::Contains("10 bytes, more than the 9 a thing may have"), Error);
  // A pseudo-file whose stat size (0) is not its length is refused, not read without bound.
  CHECK_THROWS_WITH_AS(read_file("/proc/self/status"), doctest::Contains("more than the 0 bytes"), Error);
  InputFile file(folder.file("ten"), 100, "file");
  CHECK(file.read(4) == "0123");
  CHECK_THROWS_WITH_AS(file.read(7), doctest::Contains("7 bytes wanted at offset 4"), Error);
}

TEST_CASE("npy: the exact bytes NumPy writes for a 2x3 float32 array") {
  // numpy.save of np.zeros((2,3), np.float32) writes magic \x93NUMPY, version 1.0, header length
  // 118 (0x76 0x00), the dict "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }"
  // padded with spaces so that 10 + 118 = 128 bytes, a newline last, then 24 data bytes.
  const std::string bytes = npy_bytes(Tensor::zeros({2, 3}));
  CHECK(bytes.size() == 128 + 24);
  CHECK(bytes.substr(0, 8) == std::string("\x93NUMPY\x01\x00", 8));
  CHECK(static_cast<unsigned char>(bytes[8]) == 118);
  const std::string dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";
  CHECK(bytes.substr(10, dict.size() + 1) == dict + " ");
  CHECK(bytes[127] == '\n');
  CHECK(npy_bytes(Tensor::zeros({5})).find("'shape': (5,)") != std::string::npos);
}

TEST_CASE("npy round trips are bit-exact for ranks 0 to 4 and empty arrays") {
  TemporaryFolder folder;
  for (const Shape& shape : {Shape{}, Shape{7}, Shape{2, 3}, Shape{2, 1, 3}, Shape{1, 2, 2, 2}, Shape{0, 4}}) {
    const Tensor t = sample(shape);
    save_npy(folder.file("t.npy"), t);
    const Tensor back = load_npy(folder.file("t.npy"));
    CHECK(back.shape() == shape);
    for (int64_t i = 0; i < t.numel(); ++i) CHECK(back[i] == t[i]);
  }
}

TEST_CASE("npy: wrong magic, other dtypes, truncation and trailing bytes are refused") {
  const std::string good = npy_bytes(sample({2, 3}));
  CHECK_THROWS_WITH_AS(parse_npy("hello world, not numpy"), doctest::Contains("magic"), Error);
  std::string f8 = good;
  f8.replace(f8.find("<f4"), 3, "<f8");
  CHECK_THROWS_WITH_AS(parse_npy(f8), doctest::Contains("'<f8'"), Error);
  CHECK_THROWS_WITH_AS(parse_npy(good.substr(0, good.size() - 4)), doctest::Contains("truncated"), Error);
  CHECK_THROWS_WITH_AS(parse_npy(good + "xx"), doctest::Contains("trailing"), Error);
  std::string huge = good;
  huge.replace(huge.find("(2, 3)"), 6, "(999999999999, 999999999)");
  CHECK_THROWS_AS(parse_npy(huge), Error);
}

// Versions 2.0 and 3.0 differ from 1.0 only in a 4-byte header length (3.0: a UTF-8 header):
// NumPy writes them for headers over 65535 bytes or for non-Latin-1 field names.
std::string npy_of_version(const Tensor& t, int major) {
  const std::string v1 = npy_bytes(t);
  const size_t length = static_cast<unsigned char>(v1[8]) | static_cast<size_t>(static_cast<unsigned char>(v1[9])) << 8;
  std::string bytes = v1.substr(0, 6) + static_cast<char>(major) + '\0';
  for (int i = 0; i < 4; ++i) bytes += static_cast<char>((length >> (8 * i)) & 0xff);
  return bytes + v1.substr(10);
}

TEST_CASE("npy: versions 2.0 and 3.0 are read, bit-exact, from bytes and from a file") {
  TemporaryFolder folder;
  const Tensor t = sample({3, 5});
  for (int major : {2, 3}) {
    CAPTURE(major);
    const std::string bytes = npy_of_version(t, major);
    write_file_atomically(folder.file("v.npy"), bytes);
    for (const Tensor& back : {parse_npy(bytes), load_npy(folder.file("v.npy"))}) {
      REQUIRE(back.shape() == Shape{3, 5});
      for (int64_t i = 0; i < t.numel(); ++i) CHECK(back[i] == t[i]);
    }
    std::string endless = bytes;  // a 4-byte length of 4 GiB must not be believed
    for (int i = 8; i < 12; ++i) endless[i] = '\xff';
    CHECK_THROWS_WITH_AS(parse_npy(endless), doctest::Contains("more than 65536"), Error);
  }
  std::string v4 = npy_bytes(t);
  v4[6] = 4;
  CHECK_THROWS_WITH_AS(parse_npy(v4), doctest::Contains("version 4"), Error);
}

TEST_CASE("npy: a file is refused by its header before its data is read") {
  TemporaryFolder folder;
  // A header that promises 4 GiB of data in a file of a few bytes: refused from the size alone.
  std::string bytes = npy_bytes(sample({2, 3}));
  bytes.replace(bytes.find("(2, 3)"), 6, "(1073741824, 4)");
  write_file_atomically(folder.file("big.npy"), bytes);
  CHECK_THROWS_WITH_AS(load_npy(folder.file("big.npy")), doctest::Contains("truncated"), Error);
  CHECK_THROWS_WITH_AS(load_npy("/dev/urandom"), doctest::Contains("not a regular file"), Error);
  write_file_atomically(folder.file("short.npy"), "\x93NUMPY");
  CHECK_THROWS_WITH_AS(load_npy(folder.file("short.npy")), doctest::Contains("magic"), Error);
}

TEST_CASE("checkpoint round trip is bit-exact, with metadata") {
  const std::vector<NamedTensor> tensors = {{"0.weight", sample({2, 3})}, {"0.bias", sample({1, 3})}, {"adam.step", sample({1})}};
  const std::string bytes = checkpoint_bytes(tensors, {{"step", "42"}, {"loss", "empl"}});
  const Checkpoint back = parse_checkpoint(bytes);
  CHECK(back.metadata.at("step") == "42");
  CHECK(back.metadata.at("loss") == "empl");
  REQUIRE(back.tensors.size() == 3);
  CHECK(back.tensors[1].name == "0.bias");
  Tensor w = Tensor::zeros({2, 3}), b = Tensor::zeros({1, 3}), s = Tensor::zeros({1});
  restore(back, {{"0.weight", w}, {"0.bias", b}, {"adam.step", s}});
  for (int64_t i = 0; i < 6; ++i) CHECK(w[i] == tensors[0].tensor[i]);
  CHECK(s[0] == tensors[2].tensor[0]);
}

TEST_CASE("checkpoint: every flipped byte and every truncation is refused") {
  const std::string bytes = checkpoint_bytes({{"w", sample({3, 2})}}, {{"step", "7"}});
  for (size_t i = 0; i < bytes.size(); ++i) {
    std::string corrupted = bytes;
    corrupted[i] = static_cast<char>(corrupted[i] ^ 0x20);
    CHECK_THROWS_AS(parse_checkpoint(corrupted), Error);
  }
  for (size_t size = 0; size < bytes.size(); size += 3) CHECK_THROWS_AS(parse_checkpoint(bytes.substr(0, size)), Error);
  std::string flipped = bytes;
  flipped[bytes.size() / 2] ^= 1;
  CHECK_THROWS_WITH_AS(parse_checkpoint(flipped, "model.ckpt"), doctest::Contains("checksum"), Error);
}

TEST_CASE("checkpoint of another architecture is refused, naming what differs") {
  const Checkpoint checkpoint = parse_checkpoint(checkpoint_bytes({{"0.weight", sample({2, 128})}, {"0.bias", sample({1, 128})}}, {}));
  Tensor w = Tensor::zeros({4, 256}), b = Tensor::zeros({1, 128});
  CHECK_THROWS_WITH_AS(restore(checkpoint, {{"0.weight", w}, {"0.bias", b}}, "c.ckpt"),
                       doctest::Contains("'0.weight' has shape [2,128], the model expects [4,256]"), Error);
  Tensor w2 = Tensor::zeros({2, 128});
  CHECK_THROWS_WITH_AS(restore(checkpoint, {{"0.weight", w2}}, "c.ckpt"), doctest::Contains("extra tensor '0.bias'"), Error);
  CHECK_THROWS_WITH_AS(restore(checkpoint, {{"0.weight", w2}, {"0.bias", b}, {"1.weight", b}}, "c.ckpt"),
                       doctest::Contains("missing tensor '1.weight'"), Error);
  CHECK_THROWS_WITH_AS(restore(checkpoint, {{"1.weight", w2}, {"0.bias", b}}), doctest::Contains("expects '1.weight'"), Error);
  CHECK_THROWS_WITH_AS(parse_checkpoint("EMPLCKPX and more bytes than needed"), doctest::Contains("magic"), Error);
}
