// The reading side of HistoryDb::Ingest (analysis/nightly/history_db.h): walks the
// paths given, reads run folders and loose result files, and hands each run,
// with the result files it keeps, to the writing side through a bounded
// queue. Touches no database. Internal to //analysis/nightly:history_db.

#ifndef DISSECT_ANALYSIS_NIGHTLY_HISTORY_INGEST_H_
#define DISSECT_ANALYSIS_NIGHTLY_HISTORY_INGEST_H_

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "analysis/nightly/history_db.h"
#include "analysis/results/results.h"
#include "analysis/nightly/run_data.h"

namespace dissect::analysis::history_internal {

// What the reading side of an ingest hands to the writing side, in walk
// order: the bad files met, the result files read, and a run to insert
// with the result files it keeps.
struct IngestItem {
  std::vector<std::string> bad;
  int files = 0;
  std::optional<RunData> run;
  std::vector<StoredResultFile> kept;
};

// A bounded queue of items from the reading thread to the writing one.
// Close() ends it: Push then returns false (the writer stopped early) and
// Pop returns nullopt once the queue is empty.
class ItemQueue {
 public:
  explicit ItemQueue(size_t capacity) : capacity_(capacity) {}
  bool Push(IngestItem item);
  std::optional<IngestItem> Pop();
  void Close();

 private:
  const size_t capacity_;
  std::mutex mutex_;
  std::condition_variable not_full_, not_empty_;
  std::deque<IngestItem> items_;
  bool closed_ = false;
};

// Where a result file came from when another suite measured it
// (//analysis:import writes context source, source_format, source_method
// and source_date): RunInfo's source, source_program and source_method, and
// `started` from source_date. Such a run is not a night of ours: its driver
// is left empty (the file's driver_version is the CUDA version the suite
// reported, kept in the stored file). Nothing changes for a file without
// `source`.
void FillImportSource(const ResultFile& file, RunInfo& info);

// Walks the paths of one Ingest call and reads the runs, handing each
// bad file and run to `emit` in walk order; remembers run folders already
// read. Runs on a thread of its own. Stops when `emit` returns false.
class IngestWalk {
 public:
  explicit IngestWalk(std::function<bool(IngestItem)> emit) : emit_(std::move(emit)) {}

  // False when emit asked to stop.
  bool Path(const std::string& path);

 private:
  bool Bad(std::string message);
  bool Folder(const std::string& dir, int& found);
  bool RunFolder(const std::string& dir);
  bool LooseFile(const std::string& path);

  std::function<bool(IngestItem)> emit_;
  std::set<std::string> folders_done_;
};

}  // namespace dissect::analysis::history_internal

#endif  // DISSECT_ANALYSIS_NIGHTLY_HISTORY_INGEST_H_
