// Kioko as the memory tools of a TypeScript agent. The tools have the shape most agent frameworks take
// (a name, a description, JSON-schema parameters and an execute function): hand them to the Vercel AI SDK's
// `tool()`, Mastra's `createTool()` or your own loop.
//
//   kioko serve &                                   # a keyless server on 127.0.0.1:8765
//   KIOKO_URL=http://127.0.0.1:8765 npm run example
import { KiokoClient } from "../src/index.js";

export interface MemoryTool {
  name: string;
  description: string;
  parameters: { type: "object"; properties: Record<string, { type: string; description: string }>; required: string[] };
  execute: (args: Record<string, string>) => Promise<string>;
}

/** remember / recall / forget tools bound to one user's memory. */
export function memoryTools(memory: KiokoClient, userId: string): MemoryTool[] {
  const mine = memory.scoped({ user_id: userId });
  return [
    {
      name: "remember",
      description: "Store something worth remembering about the user or the work: a fact, a decision, a preference.",
      parameters: {
        type: "object",
        properties: { text: { type: "string", description: "what to remember, in one sentence" } },
        required: ["text"],
      },
      execute: async ({ text }) => {
        const report = await mine.manage(text ?? "");
        return report.ops.length ? `remembered (${report.ops.map((op) => String(op.op)).join(", ")})` : "nothing to remember";
      },
    },
    {
      name: "recall",
      description: "Look up what is remembered that bears on a question; returns the memories as context.",
      parameters: {
        type: "object",
        properties: { question: { type: "string", description: "the question to answer" } },
        required: ["question"],
      },
      execute: async ({ question }) => (await mine.context(question ?? "")).text,
    },
    {
      name: "forget",
      description: "Forget one memory by its id (as recall listed it).",
      parameters: {
        type: "object",
        properties: { id: { type: "string", description: "the memory's id" } },
        required: ["id"],
      },
      execute: async ({ id }) => {
        await mine.delete(id ?? "");
        return "forgotten";
      },
    },
  ];
}

// run as a script: one turn of a toy agent that uses the tools
if (import.meta.url === `file://${process.argv[1]}`) {
  const memory = new KiokoClient({ url: process.env.KIOKO_URL ?? "http://127.0.0.1:8765", apiKey: process.env.KIOKO_API_KEY });
  const [remember, recall] = memoryTools(memory, "demo-user");
  console.log(await remember!.execute({ text: "I am allergic to peanuts." }));
  console.log(await recall!.execute({ question: "What should I cook for dinner?" }));
}
