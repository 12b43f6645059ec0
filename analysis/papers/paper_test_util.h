// Test helpers for the paper catalog's generator tests: reading a catalog
// entry of configs/papers and a test's synthetic result files, comparing a
// PaperFigure with its goldens and drawing its figures with gnuplot. Built on
// analysis/plots/fixture_test_util.h.

#ifndef DISSECT_ANALYSIS_PAPERS_PAPER_TEST_UTIL_H_
#define DISSECT_ANALYSIS_PAPERS_PAPER_TEST_UTIL_H_

#include <filesystem>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "analysis/plots/figures.h"
#include "analysis/plots/fixture_test_util.h"
#include "analysis/papers/catalog.h"
#include "analysis/papers/paper_figure.h"
#include "analysis/results/results.h"
#include "tools/testing/test_util.h"
#include "gtest/gtest.h"

namespace dissect::analysis::testing {

// Parses configs/papers/<id>.json (a runfile).
inline absl::StatusOr<papers::CatalogEntry> ReadCatalogEntry(const std::string& id) {
  const std::string path = absl::StrCat("configs/papers/", id, ".json");
  return papers::ParseCatalogEntry(test_util::ReadText(test_util::Runfile(path)), path);
}

// ReadCatalogEntry, failing the test (and returning an empty entry) when the
// file does not parse.
inline papers::CatalogEntry CatalogEntryOrFail(const std::string& id) {
  absl::StatusOr<papers::CatalogEntry> entry = ReadCatalogEntry(id);
  EXPECT_TRUE(entry.ok()) << entry.status();
  return entry.ok() ? *std::move(entry) : papers::CatalogEntry{};
}

// Every figure file of `figure` as one text: "==> <name> <==\n<contents>".
inline std::string FigureFilesText(const papers::PaperFigure& figure) {
  std::string text;
  for (const FigureFile& file : figure.files) {
    absl::StrAppend(&text, "==> ", file.name, " <==\n", file.contents);
  }
  return text;
}

// Expects `figure`'s markdown to match <folder><stem>.golden.md and its
// files (FigureFilesText) <folder><stem>_figures.golden.txt; `target` is
// the test's label, for DISSECT_UPDATE_GOLDEN=1.
inline void ExpectPaperGoldens(const papers::PaperFigure& figure, const std::string& folder,
                               const std::string& stem, const std::string& target) {
  ExpectMatchesGolden(figure.markdown, absl::StrCat(folder, stem, ".golden.md"), target);
  ExpectMatchesGolden(FigureFilesText(figure), absl::StrCat(folder, stem, "_figures.golden.txt"),
                      target);
}

// Whether gnuplot can be run (tests that draw skip without it).
inline bool HaveGnuplot() { return RunGnuplot(".", "--version") != 127; }

// DrawFigures for a paper figure: its files and scripts written into the
// folder `folder` of a fresh directory named after `test_name`, every script
// drawing its SVG. Sets *dir to that folder.
inline void DrawPaperFigure(const papers::PaperFigure& figure, const std::string& folder,
                            const std::string& test_name, std::filesystem::path* dir) {
  DrawFigures({folder, folder, figure.files, figure.scripts}, test_name, dir);
}

// DrawPaperFigure into a folder named `name` of a directory named `name`;
// marks the test skipped (after its other checks) without gnuplot.
inline void ExpectPaperFigureDrawn(const papers::PaperFigure& figure, const std::string& name) {
  if (!HaveGnuplot()) GTEST_SKIP() << "gnuplot not on PATH";
  std::filesystem::path dir;
  DrawPaperFigure(figure, name, name, &dir);
}

// A generator test's testdata folder (a workspace path ending in '/', holding
// its synthetic result files and its goldens) and the test's label, for
// DISSECT_UPDATE_GOLDEN=1.
struct PaperTestdata {
  const char* folder;
  const char* target;

  // The result files `names` of the folder (ReadResultFixtures).
  std::vector<ResultFile> Results(const std::vector<std::string>& names) const {
    return ReadResultFixtures(folder, names);
  }
};

// What every golden test of a generator checks of its page `figure`: that it
// was generated (else its status is the failure), that its markdown and files
// match the goldens named after `stem` in testdata.folder (ExpectPaperGoldens)
// and that gnuplot draws its figures (ExpectPaperFigureDrawn into
// "<stem>_test": the test is marked skipped, after its other checks, without
// gnuplot). Returns the markdown for the test's own checks; "" when the page
// was not generated.
inline std::string ExpectPageMatchesGoldens(const absl::StatusOr<papers::PaperFigure>& figure,
                                            const PaperTestdata& testdata,
                                            const std::string& stem) {
  if (!figure.ok()) {
    ADD_FAILURE() << figure.status();
    return "";
  }
  ExpectPaperGoldens(*figure, testdata.folder, stem, testdata.target);
  ExpectPaperFigureDrawn(*figure, stem + "_test");
  return figure->markdown;
}

}  // namespace dissect::analysis::testing

#endif  // DISSECT_ANALYSIS_PAPERS_PAPER_TEST_UTIL_H_
