// The chat client's stream reading: SSE framing alone, and framing plus each chunk's JSON and
// the message merge (what a streamed reply costs the client). Bytes/s of stream text.
#include <benchmark/benchmark.h>

#include "llm/openai_stream.hpp"
#include "llm/openai_test_server.hpp"
#include "llm/sse_parser.hpp"

namespace {

std::string stream_text(std::size_t piece_chars) {
  superstep::testing::ScriptedReply r;
  for (int i = 0; i < 400; ++i) r.content += "token" + std::to_string(i % 97) + " ";
  r.piece_chars = piece_chars;
  r.tool_calls = {{"call_1", "search", {{"query", std::string(300, 'q')}}}};
  return superstep::testing::OpenAITestServer::event_stream(r, "bench-model");
}

void BM_SseFraming(benchmark::State& state) {
  const std::string text = stream_text(static_cast<std::size_t>(state.range(0)));
  const std::size_t packet = 1400;  // bytes per network read
  std::size_t events = 0;
  for (auto _ : state) {
    superstep::internal::SseParser p;
    for (std::size_t i = 0; i < text.size(); i += packet)
      p.feed(std::string_view(text).substr(i, packet), [&](std::string_view, std::string_view d) { events += d.size() > 0; });
  }
  benchmark::DoNotOptimize(events);
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * text.size()));
}
BENCHMARK(BM_SseFraming)->Arg(4)->Arg(32);

void BM_OpenAIStreamReader(benchmark::State& state) {
  const std::string text = stream_text(static_cast<std::size_t>(state.range(0)));
  const std::size_t packet = 1400;
  std::size_t chunks = 0;
  for (auto _ : state) {
    superstep::internal::OpenAIStreamReader reader;
    for (std::size_t i = 0; i < text.size(); i += packet)
      reader.feed(std::string_view(text).substr(i, packet), [&](const superstep::ChatChunk&) { ++chunks; });
    superstep::Message m = reader.finish();
    benchmark::DoNotOptimize(m);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * text.size()));
  state.counters["chunk_bytes"] = static_cast<double>(text.size()) / static_cast<double>(chunks / state.iterations());
}
BENCHMARK(BM_OpenAIStreamReader)->Arg(4)->Arg(32);

}  // namespace
