// A typed client for a Kioko service (`kioko serve`): the operations of Python's RemoteMemory over fetch.
// Bodies and answers are the service's own OpenAPI types (src/generated/schema.ts); field names are the
// wire's (user_id, session_id), so what the REST docs say is what a call takes.
import type { components, paths } from "./generated/schema.js";
import { readEvents, type EventOptions, type KiokoEvent } from "./events.js";
import { send, type Answer, type Body, type Query, type Transport } from "./http.js";

export * from "./errors.js";
export type { EventOptions, KiokoEvent } from "./events.js";
export type { components, paths } from "./generated/schema.js";

type Schemas = components["schemas"];
/** A memory, as REST, the CLI's --json and Python's RemoteMemory show it. */
export type MemoryRecord = Schemas["RecordOut"];
/** What recall and context answer: the context text, the memories and their links. */
export type Context = Schemas["ContextOut"];
/** What the intelligence did with a turn or a text (manage, record_turn). */
export type Report = Schemas["ReportOut"];
export type Link = Schemas["LinkOut"];

/** Scope fields a scoped client fills in. */
export interface Scope {
  user_id?: string;
  agent_id?: string;
}

export interface ClientOptions extends Scope {
  /** The service's base URL, e.g. http://127.0.0.1:8765 (a trailing slash or /v1 is dropped). */
  url: string;
  /** An API key made by `kioko keys-new`; sent as `Authorization: Bearer ...`. */
  apiKey?: string;
  /** Headers sent with every request. */
  headers?: Record<string, string>;
  /** A fetch to use instead of the global one. */
  fetch?: typeof fetch;
}

type Rest<T, K extends string> = Omit<T, K>;

/** The text managers and where their routes live (/v1/lessons holds the strategies). */
export const TEXT_MANAGERS = [
  "goals",
  "decisions",
  "procedures",
  "lessons",
  "skills",
  "episodes",
  "facts",
  "preferences",
  "knowledge",
  "insights",
  "summaries",
  "instructions",
] as const;
export type TextManagerName = (typeof TEXT_MANAGERS)[number];
type ListPath<N extends TextManagerName> = `/v1/${N}` & keyof paths;
type ItemPath<N extends TextManagerName> = `/v1/${N}/{memory_id}` & keyof paths;

/** One kind's manager: `memory.facts.add("...")`, `.get(id)`, `.list()`, `.update(id, {...})`, `.delete(id)`. */
export class Manager<N extends TextManagerName> {
  constructor(
    protected readonly client: KiokoClient,
    readonly name: N,
  ) {}

  protected get list_path(): ListPath<N> {
    return `/v1/${this.name}` as ListPath<N>;
  }

  protected get item_path(): ItemPath<N> {
    return `/v1/${this.name}/{memory_id}` as ItemPath<N>;
  }

  add(content: string, options: Partial<Rest<Body<ListPath<N>, "post">, "content">> = {}): Promise<MemoryRecord> {
    const body = { ...this.client.scope, ...options, content } as Body<ListPath<N>, "post">;
    return this.client.request("post", this.list_path, { body }) as Promise<MemoryRecord>;
  }

  get(memoryId: string, options: Scope = {}): Promise<MemoryRecord> {
    const query = { ...this.client.scope, ...options } as Query<ItemPath<N>, "get">;
    return this.client.request("get", this.item_path, { path: { memory_id: memoryId }, query } as never) as Promise<MemoryRecord>;
  }

  list(options: Scope & { session_id?: string } = {}): Promise<MemoryRecord[]> {
    const query = { ...this.client.scope, ...options } as Query<ListPath<N>, "get">;
    return this.client.request("get", this.list_path, { query } as never) as Promise<MemoryRecord[]>;
  }

  update(memoryId: string, changes: Partial<Body<ItemPath<N>, "patch">>): Promise<MemoryRecord> {
    const body = { ...this.client.scope, ...changes } as Body<ItemPath<N>, "patch">;
    return this.client.request("patch", this.item_path, { path: { memory_id: memoryId }, body } as never) as Promise<MemoryRecord>;
  }

  delete(memoryId: string, options: Scope = {}): Promise<unknown> {
    const query = { ...this.client.scope, ...options };
    return this.client.request("delete", this.item_path, { path: { memory_id: memoryId }, query } as never);
  }
}

/** Goals, with their life cycle: open goals, progress, complete, drop, reopen, subgoals. */
export class Goals extends Manager<"goals"> {
  open(options: Scope = {}): Promise<MemoryRecord[]> {
    return this.client.request("get", "/v1/goals/open", { query: { ...this.client.scope, ...options } as never });
  }

  progress(goalId: string, fraction: number | null, options: Scope & { note?: string } = {}): Promise<MemoryRecord> {
    const body = { ...this.client.scope, ...options, fraction } as Body<"/v1/goals/{memory_id}/progress", "post">;
    return this.client.request("post", "/v1/goals/{memory_id}/progress", { path: { memory_id: goalId }, body });
  }

  complete(goalId: string, options: Partial<Body<"/v1/goals/{memory_id}/complete", "post">> = {}): Promise<MemoryRecord> {
    const body = { ...this.client.scope, ...options } as Body<"/v1/goals/{memory_id}/complete", "post">;
    return this.client.request("post", "/v1/goals/{memory_id}/complete", { path: { memory_id: goalId }, body });
  }

  drop(goalId: string, options: Partial<Body<"/v1/goals/{memory_id}/drop", "post">> = {}): Promise<MemoryRecord> {
    const body = { ...this.client.scope, ...options } as Body<"/v1/goals/{memory_id}/drop", "post">;
    return this.client.request("post", "/v1/goals/{memory_id}/drop", { path: { memory_id: goalId }, body });
  }

  reopen(goalId: string, options: Partial<Body<"/v1/goals/{memory_id}/reopen", "post">> = {}): Promise<MemoryRecord> {
    const body = { ...this.client.scope, ...options } as Body<"/v1/goals/{memory_id}/reopen", "post">;
    return this.client.request("post", "/v1/goals/{memory_id}/reopen", { path: { memory_id: goalId }, body });
  }

  subgoals(goalId: string, options: Scope = {}): Promise<MemoryRecord[]> {
    const query = { ...this.client.scope, ...options } as never;
    return this.client.request("get", "/v1/goals/{memory_id}/subgoals", { path: { memory_id: goalId }, query });
  }
}

/**
 * A Kioko service's memory, over HTTP.
 *
 * ```ts
 * const memory = new KiokoClient({ url: "http://127.0.0.1:8765", apiKey: process.env.KIOKO_API_KEY });
 * const kumar = memory.scoped({ user_id: "kumar" });
 * await kumar.add("Line 3 keeps faulting with error E-217.", { memory_type: "episodic" });
 * const context = await kumar.recall("line 3 is faulting again");
 * console.log(context.text);
 * ```
 */
export class KiokoClient {
  readonly scope: Scope;
  private readonly transport: Transport;
  readonly goals: Goals;
  readonly decisions: Manager<"decisions">;
  readonly procedures: Manager<"procedures">;
  /** The strategies (lessons learned), at /v1/lessons. */
  readonly lessons: Manager<"lessons">;
  readonly skills: Manager<"skills">;
  readonly episodes: Manager<"episodes">;
  readonly facts: Manager<"facts">;
  readonly preferences: Manager<"preferences">;
  readonly knowledge: Manager<"knowledge">;
  readonly insights: Manager<"insights">;
  readonly summaries: Manager<"summaries">;
  readonly instructions: Manager<"instructions">;

  constructor(options: ClientOptions) {
    const base = options.url.replace(/\/+$/, "").replace(/\/v1$/, "");
    const headers: Record<string, string> = { ...(options.headers ?? {}) };
    if (options.apiKey) headers.authorization = `Bearer ${options.apiKey}`;
    this.transport = { baseUrl: base, headers, fetch: options.fetch ?? globalThis.fetch.bind(globalThis) };
    this.scope = Object.fromEntries(
      Object.entries({ user_id: options.user_id, agent_id: options.agent_id }).filter(([, v]) => v !== undefined),
    );
    this.goals = new Goals(this, "goals");
    this.decisions = new Manager(this, "decisions");
    this.procedures = new Manager(this, "procedures");
    this.lessons = new Manager(this, "lessons");
    this.skills = new Manager(this, "skills");
    this.episodes = new Manager(this, "episodes");
    this.facts = new Manager(this, "facts");
    this.preferences = new Manager(this, "preferences");
    this.knowledge = new Manager(this, "knowledge");
    this.insights = new Manager(this, "insights");
    this.summaries = new Manager(this, "summaries");
    this.instructions = new Manager(this, "instructions");
  }

  /** The same client bound to one user (and optionally one agent): every call fills them in. */
  scoped(scope: Scope): KiokoClient {
    const headers = { ...this.transport.headers };
    const client = new KiokoClient({ url: this.transport.baseUrl, headers, fetch: this.transport.fetch, ...scope });
    return client;
  }

  /** Any documented operation, typed by the service's OpenAPI document. */
  request<P extends keyof paths, V extends "get" | "post" | "patch" | "put" | "delete">(
    verb: V,
    path: P,
    request: Parameters<typeof send<P, V>>[3] = {},
  ): Promise<Answer<P, V>> {
    return send(this.transport, verb, path, request);
  }

  /** Stores a memory of any kind (`memory_type`: "factual", "episodic", "goal", ... or an alias). */
  add(content: string, options: Partial<Rest<Body<"/v1/memories", "post">, "content">> = {}): Promise<MemoryRecord> {
    const body = { ...this.scope, ...options, content } as Body<"/v1/memories", "post">;
    return this.request("post", "/v1/memories", { body });
  }

  /** Stores several memories in one request. */
  addMany(items: Body<"/v1/memories/batch", "post">["items"]): Promise<Answer<"/v1/memories/batch", "post">> {
    const scoped = items.map((item) => ({ ...this.scope, ...item }));
    return this.request("post", "/v1/memories/batch", { body: { items: scoped } as Body<"/v1/memories/batch", "post"> });
  }

  get(memoryId: string, options: Scope = {}): Promise<MemoryRecord> {
    const query = { ...this.scope, ...options } as Query<"/v1/memories/{memory_id}", "get">;
    return this.request("get", "/v1/memories/{memory_id}", { path: { memory_id: memoryId }, query });
  }

  update(memoryId: string, changes: Partial<Body<"/v1/memories/{memory_id}", "patch">>): Promise<MemoryRecord> {
    const body = { ...this.scope, ...changes } as Body<"/v1/memories/{memory_id}", "patch">;
    return this.request("patch", "/v1/memories/{memory_id}", { path: { memory_id: memoryId }, body });
  }

  delete(memoryId: string, options: Scope = {}): Promise<Answer<"/v1/memories/{memory_id}", "delete">> {
    const query = { ...this.scope, ...options } as Query<"/v1/memories/{memory_id}", "delete">;
    return this.request("delete", "/v1/memories/{memory_id}", { path: { memory_id: memoryId }, query });
  }

  /** Forgets everything about a subject ("Krutika"): every memory naming it, its entity-graph relations, the summary
   * points and waiting session turns naming it. `{ dry_run: true }` only lists what would go. */
  forgetAbout(subject: string, options: Partial<Rest<Body<"/v1/forget", "post">, "subject">> = {}): Promise<Answer<"/v1/forget", "post">> {
    const body = { ...this.scope, ...options, subject } as Body<"/v1/forget", "post">;
    return this.request("post", "/v1/forget", { body });
  }

  /** One page of a user's memories, newest first; pass the answer's cursor for the next page. */
  list(options: Query<"/v1/memories", "get"> = {} as Query<"/v1/memories", "get">): Promise<Answer<"/v1/memories", "get">> {
    return this.request("get", "/v1/memories", { query: { ...this.scope, ...options } as Query<"/v1/memories", "get"> });
  }

  /** What the memory holds for a question: the context text, the memories, their links. */
  recall(query: string, options: Partial<Rest<Body<"/v1/recall", "post">, "query">> = {}): Promise<Context> {
    const body = { ...this.scope, ...options, query } as Body<"/v1/recall", "post">;
    return this.request("post", "/v1/recall", { body });
  }

  /** recall's context, planned for an agent's prompt. */
  context(query: string, options: Partial<Rest<Body<"/v1/context", "post">, "query">> = {}): Promise<Context> {
    const body = { ...this.scope, ...options, query } as Body<"/v1/context", "post">;
    return this.request("post", "/v1/context", { body });
  }

  /** Lets the service's intelligence decide what a text changes in memory (add, update, supersede, forget...). */
  manage(content: string, options: Partial<Rest<Body<"/v1/manage", "post">, "content">> = {}): Promise<Report> {
    const body = { ...this.scope, ...options, content } as Body<"/v1/manage", "post">;
    return this.request("post", "/v1/manage", { body });
  }

  /** One exchange of an agent loop: what the user said and what the agent answered. */
  recordTurn(content: string, reply: string | null = null, options: Partial<Rest<Body<"/v1/turns", "post">, "content" | "reply">> = {}): Promise<Report> {
    const body = { ...this.scope, ...options, content, reply } as Body<"/v1/turns", "post">;
    return this.request("post", "/v1/turns", { body });
  }

  /** Closes a session: its working memory is summarised or let go as the service is set up to. */
  endSession(sessionId: string, options: Scope = {}): Promise<Answer<"/v1/sessions/{session_id}/end", "post">> {
    const body = { ...this.scope, ...options } as Body<"/v1/sessions/{session_id}/end", "post">;
    return this.request("post", "/v1/sessions/{session_id}/end", { path: { session_id: sessionId }, body });
  }

  /** Pins a memory: it is shown in every context of its user until unpinned. */
  pin(memoryId: string, options: Scope = {}): Promise<MemoryRecord> {
    const body = { ...this.scope, ...options } as Body<"/v1/memories/{memory_id}/pin", "post">;
    return this.request("post", "/v1/memories/{memory_id}/pin", { path: { memory_id: memoryId }, body });
  }

  unpin(memoryId: string, options: Scope = {}): Promise<Answer<"/v1/memories/{memory_id}/pin", "delete">> {
    const query = { ...this.scope, ...options } as Query<"/v1/memories/{memory_id}/pin", "delete">;
    return this.request("delete", "/v1/memories/{memory_id}/pin", { path: { memory_id: memoryId }, query });
  }

  pins(options: Scope = {}): Promise<MemoryRecord[]> {
    return this.request("get", "/v1/pins", { query: { ...this.scope, ...options } as Query<"/v1/pins", "get"> });
  }

  /** Who the API key is: its name, users and rights. */
  whoami(): Promise<Answer<"/v1/whoami", "get">> {
    return this.request("get", "/v1/whoami");
  }

  /** The service's events as they happen (`for await (const e of memory.events({ signal }))`). */
  events(options: EventOptions = {}): AsyncGenerator<KiokoEvent> {
    return readEvents(this.transport, { user_id: this.scope.user_id, ...options });
  }
}
