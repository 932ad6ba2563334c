// Which compile_commands.json flags reach Clang: an allow-list of the flags that change how a
// file parses (include paths, macros, language standard, target, language dialect switches).
// Everything else is dropped, so a compile database from a stranger's checkout cannot make
// Clang write files (-MD, -MJ, --serialize-diagnostics, -Xclang -dependency-file, -ftime-trace,
// -fmodules-cache-path=), print on standard output (--version, -###, -print-*), load code
// (-fplugin=, -Xclang -load), or replace the file being analysed (-include-pch, -remap-file).
// The database's arguments are split with Clang's own driver option table, so a flag's value is
// never mistaken for a flag or an input file.
#include <set>
#include <string_view>

#include <clang/Driver/Options.h>
#include <llvm/Option/Arg.h>
#include <llvm/Option/ArgList.h>
#include <llvm/Option/OptTable.h>
#include <llvm/Option/Option.h>

#include "lint/cpp/driver.h"

namespace retrylint::cpp {

namespace {

// By option name (the spelling without its leading dashes; `=` is part of a joined name).
const std::set<std::string_view> &allowedNames() {
  static const std::set<std::string_view> names = {
      // Where headers are found.
      "I", "isystem", "iquote", "idirafter", "isysroot", "sysroot=", "sysroot", "iprefix", "iwithprefix",
      "iwithprefixbefore", "cxx-isystem", "F", "iframework", "iframeworkwithsysroot", "nostdinc", "nostdinc++",
      "nostdlibinc", "nobuiltininc", "stdlib=", "include", "imacros",
      // Macros and the language.
      "D", "U", "std=", "ansi", "pthread", "target=", "target", "gcc-toolchain=",
      // Dialect switches (each also has its -fno- form).
      "fexceptions", "fno-exceptions", "fcxx-exceptions", "fno-cxx-exceptions", "frtti", "fno-rtti",
      "fms-extensions", "fno-ms-extensions", "fms-compatibility", "fno-ms-compatibility",
      "fms-compatibility-version=", "fdelayed-template-parsing", "fno-delayed-template-parsing", "fcoroutines-ts",
      "fno-coroutines-ts", "fchar8_t", "fno-char8_t", "fsigned-char", "fno-signed-char", "funsigned-char",
      "fno-unsigned-char", "fshort-wchar", "fno-short-wchar", "fgnu-keywords", "fno-gnu-keywords", "fasm", "fno-asm",
      "fblocks", "fno-blocks", "fopenmp", "fno-openmp", "fopenmp=", "fopenmp-simd", "fno-openmp-simd", "fPIC",
      "fno-PIC", "fpic", "fno-pic", "fPIE", "fno-PIE", "fpie", "fno-pie", "fsized-deallocation",
      "fno-sized-deallocation", "faligned-allocation", "fno-aligned-allocation", "ftrigraphs", "fno-trigraphs",
      "fdollars-in-identifiers", "fno-dollars-in-identifiers", "fdeclspec", "fno-declspec", "fgnu89-inline",
      "fno-gnu89-inline", "fborland-extensions", "fno-borland-extensions", "fno-operator-names", "ffreestanding",
      "fno-builtin", "fgnuc-version=", "ffast-math", "fno-fast-math", "fshort-enums", "fno-short-enums",
      "fthreadsafe-statics", "fno-threadsafe-statics", "fno-access-control", "faccess-control", "fwrapv",
      "fno-wrapv", "fcommon", "fno-common", "fvisibility=", "fchar8_t", "fno-signed-zeros", "funroll-loops",
      "fno-unroll-loops", "fno-elide-constructors", "felide-constructors", "fgnu-inline-asm", "fno-gnu-inline-asm",
  };
  return names;
}

bool allowed(const llvm::opt::Arg &a) {
  namespace o = clang::driver::options;
  const llvm::opt::Option opt = a.getOption();
  if (opt.getKind() == llvm::opt::Option::InputClass || opt.getKind() == llvm::opt::Option::UnknownClass) return false;
  // Machine flags (-m64, -march=, -msse4.2: they set macros) and optimisation levels (__OPTIMIZE__).
  if (opt.matches(o::OPT_m_Group) || opt.matches(o::OPT_O_Group)) return true;
  if (!allowedNames().count(std::string_view(opt.getName().data(), opt.getName().size()))) return false;
  // The file is parsed as C++: a C standard would only make Clang refuse it.
  if (opt.matches(o::OPT_std_EQ)) {
    llvm::StringRef v = a.getValue();
    return v.startswith("c++") || v.startswith("gnu++");
  }
  return true;
}

} // namespace

std::vector<std::string> allowedCompileFlags(const std::vector<std::string> &in) {
  std::vector<const char *> argv;
  argv.reserve(in.size());
  for (const std::string &s : in) argv.push_back(s.c_str());
  const llvm::opt::OptTable &table = clang::driver::getDriverOptTable();
  unsigned missingIndex = 0, missingCount = 0;
  // As the GCC-style driver reads them: cc1-only and clang-cl spellings are unknown, so dropped.
  llvm::opt::InputArgList args = table.ParseArgs(argv, missingIndex, missingCount, 0,
                                                 clang::driver::options::NoDriverOption | clang::driver::options::CLOption);
  std::vector<std::string> out;
  for (const llvm::opt::Arg *a : args) {
    if (!allowed(*a)) continue;
    llvm::opt::ArgStringList rendered;
    a->render(args, rendered);
    for (const char *s : rendered) out.emplace_back(s);
  }
  return out;
}

} // namespace retrylint::cpp
