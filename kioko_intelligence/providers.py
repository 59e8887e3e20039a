"""Model providers named by a string: ``llm="openai:gpt-4o-mini"`` instead of a hand-written ``ask(prompt)``.

:func:`chat_model` turns a provider string into a :class:`ChatModel`, a prompt -> text callable that
posts one chat completion over HTTP (httpx, no vendor SDK). Anything that takes an ``ask`` callable (the
LLMRouter, the LLMPlanner, the maintenance tasks) takes one, so the router's validation and its fallback
to the offline router stay exactly those of a hand-written callable: a provider that fails raises, and
the router decides offline.

==================================  ================================================  ==========================
string                              endpoint                                          key (environment)
==================================  ================================================  ==========================
``openai:<model>``                  ``$OPENAI_BASE_URL`` or the OpenAI API, /v1       ``OPENAI_API_KEY``
``azure:<deployment>``              ``$AZURE_OPENAI_ENDPOINT``/openai/deployments/..  ``AZURE_OPENAI_API_KEY``
``ollama:<model>``                  ``$OLLAMA_HOST`` (default 127.0.0.1:11434)/v1     none
``openai-compatible:<url>#<model>`` ``<url>`` (e.g. http://127.0.0.1:8000/v1)         ``KIOKO_LLM_API_KEY``, opt.
==================================  ================================================  ==========================

Keys are read from the environment at each call and kept nowhere else: not on the object, not in its
repr, not in a log line or an error message. Each call has a connect and a read timeout; a 429 (after
its Retry-After), a 5xx and a failed connection are retried a bounded number of times; a read timeout is
not (a model that hangs once usually hangs again, and the offline router answers at once).
"""

from __future__ import annotations

import email.utils
import os
import random
import threading
import time
from typing import TYPE_CHECKING, Any

from kioko_core.errors import KiokoError, MissingExtraError
from kioko_core.privacy.secrets import get_logger, redact

if TYPE_CHECKING:
    import httpx

log = get_logger("kioko.intelligence.providers")

PROVIDERS = ("openai", "azure", "ollama", "openai-compatible")
OPENAI_URL = "https://api.openai.com/v1"
OLLAMA_URL = "http://127.0.0.1:11434"
AZURE_API_VERSION = "2024-10-21"
"""The Azure OpenAI API version used when neither AZURE_OPENAI_API_VERSION nor OPENAI_API_VERSION is set
(a generally available version that has chat completions)."""

TIMEOUT = 30.0
"""Seconds to wait for a model's answer (the read timeout of one attempt)."""
CONNECT_TIMEOUT = 5.0
MAX_RETRIES = 2
"""Retries after the first attempt, for a 429, a 5xx or a failed connection."""
MAX_WAIT = 20.0
"""The longest pause between attempts: a Retry-After asking for more ends the call at once (the offline
router answers instead of keeping the turn waiting)."""
RETRY_STATUS = frozenset({429, 500, 502, 503, 504})
OPTIONS = frozenset({"timeout", "connect_timeout", "max_retries", "max_wait", "temperature"})
"""What :func:`chat_model` passes on to :class:`ChatModel` (the endpoint and the key come from the string)."""


class ProviderConfigError(KiokoError, ValueError):
    """A provider string or setting cannot be used (nothing was sent)."""


class UnknownProviderError(ProviderConfigError):
    """The string names no provider: the known ones are ``openai``, ``azure``, ``ollama``, ``openai-compatible``."""


class MissingAPIKeyError(ProviderConfigError):
    """The provider needs a key and its environment variable is not set."""


class ProviderError(KiokoError):
    """A call to a model provider failed (the router then falls back to the offline router)."""


class ProviderHTTPError(ProviderError):
    """The provider answered with an error status (after the retries a 429 or 5xx gets)."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status


class ProviderTimeout(ProviderError, TimeoutError):
    """The provider did not answer in time."""


class ProviderConnectionError(ProviderError, ConnectionError):
    """The provider could not be reached (after the retries)."""


class ProviderResponseError(ProviderError, ValueError):
    """The provider's answer is not a chat completion with text in it."""


class ChatModel:
    """``model(prompt) -> text``: one chat completion per call at ``url`` (an OpenAI-style chat endpoint).

    ``key_env`` names the environment variable holding the key (read at each call, sent in ``key_header``
    after ``key_prefix``); ``required_key`` makes a missing variable a :class:`MissingAPIKeyError` at once.
    ``timeout`` bounds the wait for an answer, ``connect_timeout`` the connection; ``max_retries`` and
    ``max_wait`` bound the retries. ``temperature`` None leaves the provider's default.
    """

    def __init__(
        self,
        provider: str,
        model: str,
        url: str,
        *,
        key_env: str | None = None,
        required_key: bool = False,
        key_header: str = "Authorization",
        key_prefix: str = "Bearer ",
        params: dict[str, str] | None = None,
        timeout: float = TIMEOUT,
        connect_timeout: float = CONNECT_TIMEOUT,
        max_retries: int = MAX_RETRIES,
        max_wait: float = MAX_WAIT,
        temperature: float | None = 0.0,
    ) -> None:
        for name, value in (("timeout", timeout), ("connect_timeout", connect_timeout), ("max_wait", max_wait)):
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
                raise ProviderConfigError(f"{name} must be a positive number of seconds, got {value!r}")
        if isinstance(max_retries, bool) or not isinstance(max_retries, int) or not 0 <= max_retries <= 10:
            raise ProviderConfigError(f"max_retries must be an integer from 0 to 10, got {max_retries!r}")
        require_httpx()
        if not model:
            raise ProviderConfigError(f"{provider}: no model named")
        if not url.lower().startswith(("http://", "https://")):
            raise ProviderConfigError(f"{provider}: the endpoint must be an http(s) URL, got {url!r}")
        if required_key and key_env and not os.environ.get(key_env):
            raise MissingAPIKeyError(f"{provider}:{model} needs an API key: set the {key_env} environment variable")
        self.provider, self.model, self.url = provider, model, url
        self.key_env, self.key_header, self.key_prefix = key_env, key_header, key_prefix
        self.required_key = required_key
        self.params = dict(params or {})
        self.timeout, self.connect_timeout = float(timeout), float(connect_timeout)
        self.max_retries, self.max_wait = max_retries, float(max_wait)
        self.temperature = temperature
        self._client: httpx.Client | None = None
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"ChatModel({self.provider}:{self.model} at {redact(self.url)}, timeout={self.timeout:g})"

    def __call__(self, prompt: str) -> str:
        return self.chat([{"role": "user", "content": prompt}])

    def chat(self, messages: list[dict[str, str]]) -> str:
        """The text of the model's answer to ``messages`` (retried as the class says; raises a ProviderError)."""
        body: dict[str, Any] = {"model": self.model, "messages": messages}
        if self.temperature is not None:
            body["temperature"] = self.temperature
        key = self._key()
        attempts = self.max_retries + 1
        for attempt in range(1, attempts + 1):
            answer, retry, asked = self._attempt(body, key)
            if isinstance(answer, str):
                return answer
            if attempt == attempts or not retry:
                raise answer
            wait = asked if asked is not None else self._backoff(attempt)
            log.warning(
                "%s: %s; retrying in %.1f s (attempt %d of %d)", self._who(), answer, wait, attempt + 1, attempts
            )
            time.sleep(wait)
        raise AssertionError("unreachable: the last attempt returns or raises")  # pragma: no cover

    def close(self) -> None:
        with self._lock:
            client, self._client = self._client, None
        if client is not None:
            client.close()

    # -- one attempt

    def _attempt(self, body: dict[str, Any], key: str | None) -> tuple[str | ProviderError, bool, float | None]:
        """The answer's text, or the error, whether to try again and the wait the server asked for."""
        import httpx

        headers = {"Content-Type": "application/json"}
        if key:
            headers[self.key_header] = f"{self.key_prefix}{key}"
        try:
            response = self._http().post(self.url, params=self.params or None, json=body, headers=headers)
        except httpx.ConnectTimeout:
            return (
                ProviderConnectionError(f"{self._who()}: no connection within {self.connect_timeout:g} s"),
                True,
                None,
            )
        except httpx.TimeoutException:
            return ProviderTimeout(f"{self._who()}: no answer within {self.timeout:g} s"), False, None
        except (httpx.ConnectError, httpx.RemoteProtocolError) as error:
            # refused, reset, or closed before an answer: nothing was answered, so trying again is safe
            return (
                ProviderConnectionError(self._clean(f"{self._who()}: {type(error).__name__}: {error}", key)),
                True,
                None,
            )
        except httpx.HTTPError as error:
            return (
                ProviderConnectionError(self._clean(f"{self._who()}: {type(error).__name__}: {error}", key)),
                False,
                None,
            )
        if response.status_code < 400:
            return self._text(response), False, None
        status = response.status_code
        if status in (401, 403):  # the body may quote part of the key: never repeat it
            hint = f"; check {self.key_env}" if self.key_env else ""
            return ProviderHTTPError(f"{self._who()} refused the request: HTTP {status}{hint}", status), False, None
        detail = _detail(response)
        message = self._clean(f"{self._who()} answered HTTP {status}" + (f": {detail}" if detail else ""), key)
        if status not in RETRY_STATUS:
            return ProviderHTTPError(message, status), False, None
        asked = _retry_after(response)
        if asked is not None and asked > self.max_wait:
            longer = f"{message} (it asks to wait {asked:g} s, more than max_wait {self.max_wait:g} s)"
            return ProviderHTTPError(longer, status), False, None
        return ProviderHTTPError(message, status), True, asked

    def _text(self, response: httpx.Response) -> str | ProviderError:
        try:
            data = response.json()
        except ValueError:
            return ProviderResponseError(
                f"{self._who()} answered HTTP {response.status_code} with a body that is not JSON"
            )
        try:
            content = data["choices"][0]["message"]["content"]
        except (KeyError, IndexError, TypeError):
            return ProviderResponseError(
                f"{self._who()}'s answer is not a chat completion (no choices[0].message.content)"
            )
        if not isinstance(content, str):
            return ProviderResponseError(
                f"{self._who()}'s answer has no text (message.content is {type(content).__name__})"
            )
        return content

    # -- helpers

    def _who(self) -> str:
        return f"{self.provider}:{self.model}"

    def _key(self) -> str | None:
        if not self.key_env:
            return None
        key = os.environ.get(self.key_env) or None
        if key is None and self.required_key:
            raise MissingAPIKeyError(f"{self._who()} needs an API key: set the {self.key_env} environment variable")
        return key

    def _clean(self, text: str, key: str | None) -> str:
        """``text`` without the key (should a server or a library ever echo it) or any other secret."""
        if key:
            text = text.replace(key, "[REDACTED]")
        return redact(text)

    def _backoff(self, attempt: int) -> float:
        """0.5 s after the first attempt, then 1 s, 2 s ... (at most max_wait), with a little jitter so that
        clients that failed together do not come back together."""
        return min(self.max_wait, 0.5 * float(2 ** (attempt - 1)) * (1 + random.random() / 4))

    def _http(self) -> httpx.Client:
        with self._lock:
            if self._client is None:
                import httpx

                self._client = httpx.Client(
                    timeout=httpx.Timeout(self.timeout, connect=self.connect_timeout),
                    headers={"User-Agent": "kioko"},
                    follow_redirects=False,
                )
            return self._client


def _detail(response: httpx.Response) -> str:
    """The provider's own error message (OpenAI's ``{"error": {"message": ...}}``), short."""
    try:
        data = response.json()
    except ValueError:
        return ""
    error = data.get("error") if isinstance(data, dict) else None
    message = error.get("message") if isinstance(error, dict) else error
    return str(message)[:300] if isinstance(message, (str, int, float)) else ""


def _retry_after(response: httpx.Response) -> float | None:
    """Seconds the server asks to wait: ``retry-after-ms``, or ``Retry-After`` as seconds or an HTTP date."""
    millis = response.headers.get("retry-after-ms")
    if millis:
        try:
            return max(0.0, float(millis) / 1000.0)
        except ValueError:
            pass
    value = response.headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


# --------------------------------------------------------------------------- provider strings


def is_provider_string(value: Any) -> bool:
    """True when ``value`` is a string that starts with a known provider name and a colon."""
    return isinstance(value, str) and value.partition(":")[0].strip().lower() in PROVIDERS and ":" in value


def chat_model(spec: str, **options: Any) -> ChatModel:
    """The :class:`ChatModel` a provider string names (see the module's table); ``options`` go to ChatModel.

    Raises :class:`UnknownProviderError` for a string that names no provider, :class:`MissingAPIKeyError`
    when the provider's key variable is not set, :class:`ProviderConfigError` for anything else missing.
    """
    if not isinstance(spec, str) or ":" not in spec:
        raise UnknownProviderError(
            f"llm={spec!r} names no provider; use one of {', '.join(p + ':...' for p in PROVIDERS)}"
        )
    name, _, rest = spec.partition(":")
    name, rest = name.strip().lower(), rest.strip()
    if name not in PROVIDERS:
        raise UnknownProviderError(f"unknown model provider {name!r} in llm={spec!r}; known: {', '.join(PROVIDERS)}")
    if not rest:
        raise ProviderConfigError(f"llm={spec!r} names no model: write {name}:<model>")
    unknown = sorted(set(options) - OPTIONS)
    if unknown:
        raise ProviderConfigError(f"unknown provider option(s) {unknown}; known: {sorted(OPTIONS)}")
    if name == "openai":
        base = os.environ.get("OPENAI_BASE_URL") or OPENAI_URL
        return ChatModel(name, rest, _chat_url(base), key_env="OPENAI_API_KEY", required_key=True, **options)
    if name == "azure":
        endpoint = os.environ.get("AZURE_OPENAI_ENDPOINT")
        if not endpoint:
            raise ProviderConfigError(
                f"llm={spec!r} needs the Azure resource's endpoint: set AZURE_OPENAI_ENDPOINT "
                "(https://<resource>.openai.azure.com)"
            )
        version = (
            os.environ.get("AZURE_OPENAI_API_VERSION") or os.environ.get("OPENAI_API_VERSION") or AZURE_API_VERSION
        )
        url = f"{endpoint.rstrip('/')}/openai/deployments/{rest}/chat/completions"
        return ChatModel(
            name,
            rest,
            url,
            key_env="AZURE_OPENAI_API_KEY",
            required_key=True,
            key_header="api-key",
            key_prefix="",
            params={"api-version": version},
            **options,
        )
    if name == "ollama":
        return ChatModel(name, rest, _chat_url(_ollama_host(os.environ.get("OLLAMA_HOST")) + "/v1"), **options)
    base, _, model = rest.partition("#")
    if not model.strip():
        raise ProviderConfigError(
            f"llm={spec!r} names no model: write openai-compatible:<base url>#<model>, "
            "e.g. openai-compatible:http://127.0.0.1:8000/v1#llama3.1"
        )
    # its own variable: OPENAI_API_KEY would be sent to whatever server the URL names
    return ChatModel(
        "openai-compatible", model.strip(), _chat_url(base.strip()), key_env="KIOKO_LLM_API_KEY", **options
    )


def _chat_url(base: str) -> str:
    base = base.rstrip("/")
    return base if base.endswith("/chat/completions") else f"{base}/chat/completions"


def _ollama_host(value: str | None) -> str:
    """OLLAMA_HOST as Ollama reads it: a scheme and the port 11434 added when missing."""
    host = (value or "").strip().rstrip("/")
    if not host:
        return OLLAMA_URL
    if "://" not in host:
        host = f"http://{host}"
    scheme, _, rest = host.partition("://")
    hostport = rest.split("/", 1)[0]
    if not hostport.rsplit("]", 1)[-1].count(":"):  # no port (an IPv6 address keeps its colons in brackets)
        host = f"{scheme}://{hostport}:11434" + rest[len(hostport) :]
    return host


def require_httpx() -> None:
    try:
        import httpx  # noqa: F401
    except ImportError as error:
        raise MissingExtraError("model providers need httpx: pip install 'kioko[llm]'") from error


__all__ = [
    "PROVIDERS",
    "ChatModel",
    "MissingAPIKeyError",
    "ProviderConfigError",
    "ProviderConnectionError",
    "ProviderError",
    "ProviderHTTPError",
    "ProviderResponseError",
    "ProviderTimeout",
    "UnknownProviderError",
    "chat_model",
    "is_provider_string",
]
