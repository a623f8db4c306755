// The repository must be self-contained: users have only the repository, so no tracked file may
// point at the project's private working folder or cite its private notes. Spec facts are cited
// from docs/spec-notes.md (with their IBTA clauses), captures from vectors/real/.
//
// The files checked are those `git ls-files` lists in the source directory; when git is missing
// or the source is not a checkout, every file under it except build/ and .git/.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <unistd.h>

namespace {

namespace fs = std::filesystem;

// A scratch directory of the test's own (ctest may run test processes in parallel).
class ScratchDir {
 public:
  ScratchDir()
      : path_(fs::temp_directory_path() /
              ("rocecert-self-contained-" + std::to_string(::getpid()))) {
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  ~ScratchDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

// Built from pieces so that this file does not contain what it looks for.
std::vector<std::string> forbidden() {
  const std::string section_sign = "\xC2\xA7";  // U+00A7 in UTF-8
  return {std::string("shared") + "/", std::string("digest") + " " + section_sign};
}

// Tracked files, relative to `root`; empty when git cannot list them.
std::vector<std::string> git_files(const fs::path& root) {
  std::vector<std::string> files;
  const std::string cmd = "git -C '" + root.string() + "' ls-files -z 2>/dev/null";
  FILE* p = popen(cmd.c_str(), "r");
  if (p == nullptr) return files;
  std::string out;
  char buf[4096];
  std::size_t n = 0;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  if (pclose(p) != 0) return {};
  std::size_t start = 0;
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (out[i] != '\0') continue;
    if (i > start) files.push_back(out.substr(start, i - start));
    start = i + 1;
  }
  return files;
}

// Every regular file under `root`, except what lies under build/ or .git/ (at any depth).
std::vector<std::string> walk_files(const fs::path& root) {
  std::vector<std::string> files;
  for (auto it = fs::recursive_directory_iterator(root); it != fs::recursive_directory_iterator();
       ++it) {
    const std::string name = it->path().filename().string();
    if (it->is_directory() && (name == "build" || name == ".git")) {
      it.disable_recursion_pending();
      continue;
    }
    if (it->is_regular_file()) files.push_back(fs::relative(it->path(), root).string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

// "file:line: text" for every line of every file that holds a forbidden string.
std::vector<std::string> offenders(const fs::path& root, const std::vector<std::string>& files) {
  std::vector<std::string> found;
  const std::vector<std::string> needles = forbidden();
  for (const std::string& rel : files) {
    std::ifstream in(root / rel, std::ios::binary);
    if (!in) continue;  // tracked but deleted in the work tree
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::size_t line_start = 0;
    int line = 1;
    for (std::size_t i = 0; i <= text.size(); ++i) {
      if (i < text.size() && text[i] != '\n') continue;
      const std::string l = text.substr(line_start, i - line_start);
      for (const std::string& needle : needles) {
        if (l.find(needle) != std::string::npos) {
          found.push_back(rel + ":" + std::to_string(line) + ": " + l.substr(0, 120));
          break;
        }
      }
      line_start = i + 1;
      ++line;
    }
  }
  return found;
}

std::vector<std::string> files_of(const fs::path& root) {
  std::vector<std::string> files = git_files(root);
  return files.empty() ? walk_files(root) : files;
}

TEST(SelfContained, NoTrackedFileCitesPrivateMaterial) {
  const fs::path root(ROCECERT_SOURCE_DIR);
  const std::vector<std::string> files = files_of(root);
  ASSERT_GT(files.size(), 100u) << "could not list the files of " << root;
  const std::vector<std::string> found = offenders(root, files);
  std::string report;
  for (const std::string& f : found) report += "\n  " + f;
  EXPECT_TRUE(found.empty()) << found.size() << " line(s) point outside the repository "
                             << "(cite docs/spec-notes.md or vectors/real/ instead):" << report;
}

// The scan itself finds what it must, outside git, and skips build/ and .git/.
TEST(SelfContained, ScanFindsForbiddenStringsAndSkipsBuildDirs) {
  ScratchDir dir;
  const fs::path root = dir.path();
  const std::vector<std::string> needles = forbidden();
  fs::create_directories(root / "src");
  fs::create_directories(root / "build" / "release");
  fs::create_directories(root / ".git");
  std::ofstream(root / "src" / "a.cpp") << "// fine\n// see ../" << needles[0] << "x\n";
  std::ofstream(root / "src" / "b.md") << "as the " << needles[1] << "3.3 says\n";
  std::ofstream(root / "src" / "c.h") << "// docs/spec-notes.md \xC2\xA7"
                                      << "3.3\n";
  std::ofstream(root / "build" / "release" / "d.txt") << needles[0] << "\n";
  std::ofstream(root / ".git" / "e") << needles[1] << "\n";
  const std::vector<std::string> files = walk_files(root);
  EXPECT_EQ(files, (std::vector<std::string>{"src/a.cpp", "src/b.md", "src/c.h"}));
  const std::vector<std::string> found = offenders(root, files);
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0].rfind("src/a.cpp:2: ", 0), 0u) << found[0];
  EXPECT_EQ(found[1].rfind("src/b.md:1: ", 0), 0u) << found[1];
}

}  // namespace
