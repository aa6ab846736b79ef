// Limits: the largest update, checkpoint, state and message a run accepts. Each stops a runaway
// graph (a node that doubles a value every step, a model that streams without end) with a
// LimitError naming the limit, its value, the size found and the graph, thread, node and key at
// fault, before memory runs out, and before anything over the limit is stored: the thread's last
// checkpoint stays readable and a run with a raised limit continues from it.
//
// Sizes are measured, not serialized: a value's size is the bytes of its strings (object keys
// and string values, unescaped) plus 8 bytes for every other element (number, boolean, null,
// array, object). For text it is close to the JSON's length; measuring costs O(elements),
// whatever the strings' lengths, and stops as soon as the limit is passed.
//
// Set them where the graph is compiled (CompileOptions::limits) or per run (RunConfig::limits,
// which replaces the graph's). A plain value type; copy it freely.
#pragma once

#include <cstddef>

namespace superstep {

struct Limits {
  static constexpr std::size_t kMiB = std::size_t{1} << 20;

  /// The largest update a task may write in one step: a node's writes to state keys plus its
  /// Sends. Checked on the task's thread as it finishes; the step then fails and nothing of it
  /// is applied. JSON writes are measured in every run; typed fields only in a checkpointed run
  /// (where they are written as JSON anyway).
  std::size_t max_update_bytes = 256 * kMiB;
  /// The largest checkpoint a step may store: the values of the channels it changed (an append
  /// counts its new elements only) and its pending Sends. Checked before the saver is called.
  std::size_t max_checkpoint_bytes = 256 * kMiB;
  /// The largest state a checkpoint may describe: every channel's value (and pending Sends).
  /// Kept up to date per step from what the step stores, so it costs O(what changed).
  /// Checkpointed runs only: without a checkpointer the state is bounded by max_update_bytes
  /// times the steps of the run.
  std::size_t max_state_bytes = 1024 * kMiB;
  /// The largest message: the content of one message written to a key under add_messages
  /// (JSON state), a string's bytes or the measured size of a list of content blocks.
  std::size_t max_message_bytes = 32 * kMiB;
};

}  // namespace superstep
