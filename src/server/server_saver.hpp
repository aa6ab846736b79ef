// ServerSaver: the server's checkpointer, forwarding everything to the database's saver except
// claim_thread. A saver's claim keeps two processes from running one thread at once (SQLite: a
// row written and deleted per run, two write transactions); the server already runs one run per
// thread at a time and owns its database (docs/server.md), so its runs claim nothing.
#pragma once

#include <memory>

#include "superstep/checkpoint/forwarding_saver.hpp"

namespace superstep::server {

class ServerSaver final : public ForwardingSaver {
 public:
  using ForwardingSaver::ForwardingSaver;
  std::unique_ptr<ThreadClaim> claim_thread(const std::string&, const std::string&) override {
    return std::make_unique<ThreadClaim>();
  }
};

}  // namespace superstep::server
