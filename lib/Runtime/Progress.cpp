//===- Progress.cpp - Compile progress reporting --------------------------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "llm/Runtime/Progress.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/Process.h"

#include <algorithm>
#include <cmath>

using namespace mlir::llm::runtime;

CompileProgress::~CompileProgress() = default;

TerminalProgress::TerminalProgress(llvm::raw_ostream &os,
                                   std::chrono::milliseconds delay,
                                   std::chrono::milliseconds interval)
    : os(os), start(std::chrono::steady_clock::now()), delay(delay),
      interval(interval) {
  width = llvm::sys::Process::StandardErrColumns();
}

TerminalProgress::~TerminalProgress() { clear(); }

std::string TerminalProgress::format(llvm::StringRef stage, double fraction,
                                     unsigned width) {
  if (!(fraction >= 0)) // Also NaN.
    fraction = 0;
  int percent = static_cast<int>(std::floor(std::min(fraction, 1.0) * 100));
  std::string line;
  llvm::raw_string_ostream ls(line);
  ls << llvm::format("llmc: [%3d%%] ", percent) << stage;
  // One column short of the width: writing the last column would wrap the
  // cursor to the next line on some terminals.
  if (width > 1 && line.size() > width - 1)
    line.resize(width - 1);
  return line;
}

void TerminalProgress::update(llvm::StringRef stage, double fraction) {
  std::lock_guard<std::mutex> lock(mutex);
  auto now = std::chrono::steady_clock::now();
  if (now - start < delay)
    return;
  std::string line = format(stage, fraction, width);
  int percent = static_cast<int>(std::floor(
      std::clamp(std::isnan(fraction) ? 0.0 : fraction, 0.0, 1.0) * 100));
  if (line == shown)
    return;
  if (percent == shownPercent && !shown.empty() && now - lastWrite < interval)
    return;
  // \r: back to the start of the line; ESC [ K: clear to its end.
  os << '\r' << line << "\x1b[K";
  os.flush();
  shown = std::move(line);
  shownPercent = percent;
  lastWrite = now;
}

void TerminalProgress::clear() {
  std::lock_guard<std::mutex> lock(mutex);
  if (shown.empty())
    return;
  os << "\r\x1b[K";
  os.flush();
  shown.clear();
  shownPercent = -1;
}

//===----------------------------------------------------------------------===//
// StageTimer
//===----------------------------------------------------------------------===//

void StageTimer::begin(llvm::StringRef stage) {
  if (stage == current)
    return;
  finish();
  current = stage.str();
  since = std::chrono::steady_clock::now();
}

void StageTimer::finish() {
  if (current.empty())
    return;
  double seconds = std::chrono::duration<double>(
                       std::chrono::steady_clock::now() - since)
                       .count();
  auto it = llvm::find_if(stages, [&](auto &s) { return s.first == current; });
  if (it == stages.end())
    stages.push_back({current, seconds});
  else
    it->second += seconds;
  current.clear();
}

void StageTimer::update(llvm::StringRef stage, double fraction) {
  llvm::StringRef group = stage.split(':').first;
  for (llvm::StringRef verb : {"importing", "parsing"})
    if (group.starts_with((verb + " ").str()))
      group = verb;
  begin(group.trim());
  if (inner)
    inner->update(stage, fraction);
}

void StageTimer::clear() {
  if (inner)
    inner->clear();
}

void StageTimer::print(llvm::raw_ostream &os) const {
  double total = 0;
  for (auto &[name, seconds] : stages)
    total += seconds;
  os << "===- llmc compile stages -===\n";
  for (auto &[name, seconds] : stages)
    os << llvm::format("  %8.3f s (%5.1f%%)  ", seconds,
                       total > 0 ? 100 * seconds / total : 0.0)
       << name << "\n";
  os << llvm::format("  %8.3f s (100.0%%)  total\n", total);
}
