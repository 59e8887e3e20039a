// The one request function every call goes through, typed by the generated OpenAPI paths: a path, a verb,
// its parameters and its body are checked against the service's document at compile time.
import type { paths } from "./generated/schema.js";
import { ConnectionLostError, errorOf } from "./errors.js";

export type Verb = "get" | "post" | "patch" | "put" | "delete";
type OperationOf<P extends keyof paths, V extends Verb> = NonNullable<paths[P][V]>;

type JsonBody<O> = O extends { requestBody: { content: { "application/json": infer B } } }
  ? B
  : O extends { requestBody?: { content: { "application/json": infer B } } }
    ? B | undefined
    : undefined;
type QueryOf<O> = O extends { parameters: { query?: infer Q } } ? Q : undefined;
type PathOf<O> = O extends { parameters: { path: infer T } } ? T : undefined;
type Ok<R> = R extends { 200: { content: { "application/json": infer A } } }
  ? A
  : R extends { 201: { content: { "application/json": infer A } } }
    ? A
    : unknown;

/** The answer of `verb path` as the service documents it. */
export type Answer<P extends keyof paths, V extends Verb> = Ok<OperationOf<P, V>["responses"]>;
/** The JSON body of `verb path`. */
export type Body<P extends keyof paths, V extends Verb> = JsonBody<OperationOf<P, V>>;
/** The query parameters of `verb path`. */
export type Query<P extends keyof paths, V extends Verb> = QueryOf<OperationOf<P, V>>;

export interface Request<P extends keyof paths, V extends Verb> {
  path?: PathOf<OperationOf<P, V>>;
  query?: Query<P, V>;
  body?: Body<P, V>;
  signal?: AbortSignal;
}

export interface Transport {
  baseUrl: string;
  headers: Record<string, string>;
  fetch: typeof fetch;
}

/** `/v1/goals/{memory_id}` with `{memory_id: "g 1"}` -> `/v1/goals/g%201`: every segment quoted whole. */
export function fillPath(template: string, values: Record<string, unknown> | undefined): string {
  return template.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = values?.[name];
    if (typeof value !== "string" || value === "") {
      throw new TypeError(`${name} must be a non-empty string, got ${JSON.stringify(value)}`);
    }
    return encodeURIComponent(value);
  });
}

export function queryString(query: Record<string, unknown> | undefined): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query ?? {})) {
    if (value === undefined || value === null) continue;
    for (const item of Array.isArray(value) ? value : [value]) search.append(name, String(item));
  }
  const text = search.toString();
  return text ? `?${text}` : "";
}

/** Sends one request and returns the parsed answer, or throws the error class the answer names. */
export async function send<P extends keyof paths, V extends Verb>(
  transport: Transport,
  verb: V,
  path: P,
  request: Request<P, V> = {},
): Promise<Answer<P, V>> {
  const response = await open(transport, verb, path as string, request);
  const text = await response.text();
  return (text ? JSON.parse(text) : null) as Answer<P, V>;
}

/** The raw response of a request (for streams); an error answer is thrown as its class. */
export async function open(
  transport: Transport,
  verb: Verb,
  path: string,
  request: { path?: unknown; query?: unknown; body?: unknown; signal?: AbortSignal; accept?: string },
): Promise<Response> {
  const url =
    transport.baseUrl +
    fillPath(path, request.path as Record<string, unknown> | undefined) +
    queryString(request.query as Record<string, unknown> | undefined);
  const headers: Record<string, string> = { accept: request.accept ?? "application/json", ...transport.headers };
  let body: string | undefined;
  if (request.body !== undefined) {
    headers["content-type"] = "application/json";
    body = JSON.stringify(withoutUndefined(request.body));
  }
  let response: Response;
  try {
    response = await transport.fetch(url, { method: verb.toUpperCase(), headers, body, signal: request.signal });
  } catch (error) {
    if ((error as { name?: string }).name === "AbortError") throw error;
    throw new ConnectionLostError(`the Kioko service at ${transport.baseUrl} did not answer: ${String(error)}`);
  }
  if (!response.ok) throw errorOf(response.status, await response.text(), response.headers);
  return response;
}

// the server applies its own defaults to what is left out; an explicit null stays (it can mean "clear")
function withoutUndefined(value: unknown): unknown {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return value;
  return Object.fromEntries(Object.entries(value).filter(([, item]) => item !== undefined));
}
