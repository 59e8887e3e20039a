// The Python library's exceptions, as classes of the same names: a server's error body names its class
// ({"error": {"type": "MemoryNotFound", "message": ...}}) and the client throws that class, so
// `catch (e) { if (e instanceof MemoryNotFound) ... }` reads as it does in Python.

/** Every error this client throws for a server's answer, or for a server it cannot reach. */
export class KiokoError extends Error {
  /** The HTTP status of the answer; 0 when there was no answer. */
  readonly status: number;
  /** The class name the server gave (e.g. "MemoryNotFound"); the class thrown when it is known. */
  readonly type: string;
  constructor(message: string, status = 0, type?: string) {
    super(message);
    this.status = status;
    this.type = type ?? new.target.name;
    this.name = new.target.name;
  }
}

export class StoreError extends KiokoError {}
/** A write that lost a race or an id already taken (HTTP 409). */
export class ConflictError extends StoreError {}
export class IdTaken extends ConflictError {}
/** Input the library refuses (HTTP 422); the subclasses say why. */
export class InvalidRecordError extends StoreError {}
export class ConnectionLostError extends StoreError {}
/** No memory with that id in the scope asked (HTTP 404). */
export class MemoryNotFound extends StoreError {}
export class KindMismatch extends InvalidRecordError {}
export class LinkConflict extends KiokoError {}
/** The text holds a secret (API key, token, password...): nothing was stored. `kinds` says what was found. */
export class SecretDropped extends InvalidRecordError {
  kinds: string[] = [];
}
/** Content over the server's limit (HTTP 413). */
export class TooLargeError extends InvalidRecordError {}
/** A request the service refused before the library saw it. */
export class ServiceError extends KiokoError {}
/** No API key, or one the server does not know (HTTP 401). */
export class Unauthorized extends ServiceError {}
/** The API key may not act for this user or agent (HTTP 403). */
export class Forbidden extends ServiceError {}
/** The request body is over the server's limit (HTTP 413). */
export class PayloadTooLarge extends ServiceError {}
/** Over the key's request rate (HTTP 429); `retryAfter` is in seconds. */
export class TooManyRequests extends ServiceError {
  retryAfter: number | null = null;
}
/** A webhook URL the server will not call (HTTP 422). */
export class WebhookRefused extends InvalidRecordError {}
/** The request does not match the API's schema (HTTP 422); the message names the fields. */
export class RequestInvalid extends InvalidRecordError {}

const BY_NAME: Record<string, new (message: string, status?: number, type?: string) => KiokoError> = {
  KiokoError,
  StoreError,
  ConflictError,
  IdTaken,
  InvalidRecordError,
  ConnectionLostError,
  MemoryNotFound,
  KindMismatch,
  LinkConflict,
  SecretDropped,
  TooLargeError,
  ServiceError,
  Unauthorized,
  Forbidden,
  PayloadTooLarge,
  TooManyRequests,
  WebhookRefused,
  RequestInvalid,
};

// an error class the server names that this client does not know still keeps its family by status
const BY_STATUS: Record<number, new (message: string, status?: number, type?: string) => KiokoError> = {
  401: Unauthorized,
  403: Forbidden,
  404: MemoryNotFound,
  409: ConflictError,
  413: PayloadTooLarge,
  422: InvalidRecordError,
  429: TooManyRequests,
  503: StoreError,
};

/** The error an answer stands for: the class its body names, else one by its status. */
export function errorOf(status: number, text: string, headers?: Headers): KiokoError {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  const error = (body as { error?: { type?: unknown; message?: unknown; kinds?: unknown } } | undefined)?.error;
  let result: KiokoError;
  if (error && typeof error === "object" && typeof error.type === "string") {
    const message = typeof error.message === "string" ? error.message : text;
    const cls = BY_NAME[error.type] ?? BY_STATUS[status] ?? KiokoError;
    result = new cls(message, status, error.type);
    if (result instanceof SecretDropped && Array.isArray(error.kinds)) result.kinds = error.kinds.map(String);
  } else {
    const cls = BY_STATUS[status] ?? KiokoError;
    result = new cls(`the Kioko service answered HTTP ${status}: ${text.slice(0, 200)}`, status);
  }
  if (result instanceof TooManyRequests) {
    const retry = Number(headers?.get("retry-after"));
    result.retryAfter = Number.isFinite(retry) && retry > 0 ? retry : null;
  }
  return result;
}
