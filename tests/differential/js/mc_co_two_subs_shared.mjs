// The JS twin of mc_co_two_subs_shared is mc_co_two_subs_pool's graph and transcript (LangGraph.js
// has no executor to choose; the C++ side runs the same graph on the shared pool).
import "./mc_co_two_subs_pool.mjs";
