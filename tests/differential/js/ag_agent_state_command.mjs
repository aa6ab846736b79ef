// createReactAgent with a state schema of its own and a tool returning a Command that updates
// a key of it beside its tool message (stream updates and values; the requests).
import { createReactAgent } from "@langchain/langgraph/prebuilt";
import { Annotation, Command, MessagesAnnotation } from "@langchain/langgraph";
import { ToolMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { stream } from "./transcript.mjs";
import { withServer, chatModel } from "./agent_helpers.mjs";
const remember = tool(({ name }, config) => new Command({
  update: { messages: [new ToolMessage({ content: `saved ${name}`, tool_call_id: config.toolCall.id, id: `tm-${config.toolCall.id}` })], user: name },
}), { name: "remember", description: "Remembers the user's name.", schema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] } });
const State = Annotation.Root({ ...MessagesAnnotation.spec, user: Annotation() });
await withServer("ag_agent_state_command", async (server) => {
  const agent = createReactAgent({ llm: chatModel(server), tools: [remember], stateSchema: State });
  await stream(agent, { messages: [{ type: "human", content: "I am Ada", id: "h1" }] }, {}, ["updates", "values"]);
});
