"""Fake GitHub (device flow + Copilot token exchange) and Copilot API, on
one loopback server. The Copilot API is chat completions (a FakeOpenAI of
flavor "openai" underneath) under api_prefix (PREFIX), with no /v1.

Wire (PROVIDERS.md section 5):
  POST /login/device/code            form client_id, scope; Accept json
    -> {"device_code","user_code","verification_uri","expires_in","interval"}
  POST /login/oauth/access_token     form client_id, device_code, grant_type
    -> 200 {"access_token","token_type":"bearer","scope":"read:user"}
       200 {"error": "authorization_pending" | "slow_down" (+ "interval") |
            "expired_token" | "access_denied" | "incorrect_client_credentials",
            "error_description", "error_uri"}
       a poll sooner than the interval is answered slow_down, as GitHub does
  GET /copilot_internal/v2/token     Authorization: token <oauth>
    -> {"token","expires_at","refresh_in","endpoints":{"api",...},...}
       401 {"message":"Bad credentials","documentation_url"} (unknown or
       revoked login); 404 for a login in no_copilot (no Copilot plan)
  {api}/chat/completions, {api}/models  Authorization: Bearer <session
    token>, which must be issued and not expired (401 otherwise); a
    request without Editor-Version is 400, as the service answers, and so
    is one with a picture but without Copilot-Vision-Request: true.
    Models carry capabilities.supports.tool_calls.

Scripting: `polls` is the list of answers to the next polls ("pending",
"slow_down", "expired", "denied", "ok"; empty list: "ok"); clock() is the
fake's time in seconds (set it to the test's clock); ttl the session
token's lifetime; uses the requests one session token serves before it is
refused (401, as a token GitHub ended early; None: no limit); revoke()
forgets every login.
"""
import itertools
import time
from urllib.parse import parse_qs

from .base import ALNUM, Reject, Whole, bearer, new_id
from .openai import FakeOpenAI

CLIENT_ID = "Iv1.b507a08c87ecfe98"
MODELS = (("gpt-4.1", True), ("gpt-5-mini", True), ("o1-mini", False))


class FakeGitHub(FakeOpenAI):
    def __init__(self, api_prefix="", models=MODELS):
        FakeOpenAI.__init__(self, "openai", "unused", [m for m, _ in models])
        self.tools_of = dict(models)
        self.PREFIX = api_prefix        # the Copilot API's base path
        self.clock = time.time
        self.ttl = 1500
        self.interval = 0
        self.expires_in = 900
        self.polls = []
        self.logins = set()           # OAuth tokens handed out
        self.no_copilot = set()       # logins without a Copilot plan (404)
        self.sessions = {}            # session token -> expires_at
        self.uses = None              # requests a session token serves (None: any)
        self.used = {}                # session token -> requests served
        self.exchanges = 0
        self.poll_times = []
        self._last_poll = None
        self._n = itertools.count(1)

    @property
    def root(self):
        return "http://127.0.0.1:%d" % self.port

    @property
    def api(self):
        return self.base_url

    def revoke(self):
        self.logins.clear()

    def login(self):
        """An OAuth token as if the device flow had run."""
        t = "gho_" + new_id("", 36, ALNUM)
        self.logins.add(t)
        return t

    # ------------------------------------------------------------ routing
    def route(self, req):
        p = req.path.rstrip("/")
        if req.method == "POST" and p == "/login/device/code":
            return self.device_code(req)
        if req.method == "POST" and p == "/login/oauth/access_token":
            return self.access_token(req)
        if req.method == "GET" and p == "/copilot_internal/v2/token":
            return self.exchange(req)
        if req.method == "GET" and p == self.PREFIX + "/models":
            self.check_auth(req)
            return self.copilot_models()
        if p == self.PREFIX + "/chat/completions":
            n = len(self.files)
            answer = FakeOpenAI.route(self, req)
            if len(self.files) > n and req.headers.get("copilot-vision-request") != "true":
                raise Reject(400, {"error": {"message": "missing required Copilot-Vision-Request "
                                             "header for vision requests",
                                             "code": "bad_request"}})
            return answer
        return Whole(404, {"message": "Not Found",
                           "documentation_url": "https://docs.github.com/rest"})

    def form(self, req):
        if "json" not in (req.headers.get("accept") or ""):
            raise Reject(200, "error=unsupported_accept")     # GitHub's form text
        return dict((k, v[0]) for k, v in parse_qs(req.raw.decode()).items())

    def device_code(self, req):
        f = self.form(req)
        if f.get("client_id") != CLIENT_ID:
            return Whole(200, {"error": "incorrect_client_credentials",
                               "error_description": "The client_id and/or client_secret "
                                                    "passed are incorrect."})
        if f.get("scope") != "read:user":
            return Whole(200, {"error": "invalid_scope"})
        self._last_poll = None
        return Whole(200, {"device_code": new_id("", 40, "0123456789abcdef"),
                           "user_code": "WDJB-MJHT",
                           "verification_uri": "https://github.com/login/device",
                           "expires_in": self.expires_in, "interval": self.interval})

    def access_token(self, req):
        f = self.form(req)
        if f.get("grant_type") != "urn:ietf:params:oauth:grant-type:device_code" or \
                f.get("client_id") != CLIENT_ID or not f.get("device_code"):
            return Whole(200, {"error": "unsupported_grant_type"})
        now = self.clock()
        self.poll_times.append(now)
        early = self._last_poll is not None and now - self._last_poll < self.interval
        self._last_poll = now
        state = self.polls.pop(0) if self.polls else "ok"
        if early:
            state = "slow_down"
        if state == "ok":
            return Whole(200, {"access_token": self.login(), "token_type": "bearer",
                               "scope": "read:user"})
        if state == "slow_down":
            self.interval += 5
            return Whole(200, {"error": "slow_down", "interval": self.interval,
                               "error_description": "Too many requests have been made "
                                                    "in the same timeframe."})
        word = {"pending": "authorization_pending", "expired": "expired_token",
                "denied": "access_denied"}[state]
        return Whole(200, {"error": word, "error_description": word.replace("_", " "),
                           "error_uri": "https://docs.github.com"})

    def exchange(self, req):
        auth = req.headers.get("authorization") or ""
        if not auth.startswith("token ") or auth[6:] not in self.logins:
            return Whole(401, {"message": "Bad credentials",
                               "documentation_url": "https://docs.github.com/rest"})
        if auth[6:] in self.no_copilot:
            return Whole(404, {"message": "Not Found for %s" % auth[6:],
                               "documentation_url": "https://docs.github.com/rest"})
        self.exchanges += 1
        exp = int(self.clock()) + self.ttl
        token = "tid=%d;exp=%d;sku=free;proxy-ep=proxy.example:%s" % (
            next(self._n), exp, new_id("", 32))
        self.sessions[token] = exp
        return Whole(200, {"token": token, "expires_at": exp, "refresh_in": self.ttl - 300,
                           "endpoints": {"api": self.api, "proxy": self.root + "/proxy",
                                         "telemetry": self.root + "/telemetry"},
                           "chat_enabled": True, "sku": "free_limited_copilot",
                           "tracking_id": new_id("", 32)})

    # ------------------------------------------------------------ Copilot API
    def check_auth(self, req):
        token = bearer(req)
        exp = self.sessions.get(token)
        n = self.used[token] = self.used.get(token, 0) + 1
        if exp is None or self.clock() >= exp or (self.uses is not None and n > self.uses):
            raise Reject(401, {"error": {"message": "unauthorized: token expired",
                                         "code": "unauthorized"}})
        if not req.headers.get("editor-version"):
            raise Reject(400, "bad request: missing Editor-Version header for IDE auth")

    def copilot_models(self):
        return Whole(200, {"object": "list", "data": [
            {"id": m, "name": m, "object": "model", "vendor": "OpenAI", "version": m,
             "model_picker_enabled": True, "preview": False,
             "capabilities": {"family": m, "type": "chat", "object": "model_capabilities",
                              "limits": {"max_output_tokens": 16384},
                              "supports": dict({"streaming": True},
                                               **({"tool_calls": True,
                                                   "parallel_tool_calls": True}
                                                  if self.tools_of[m] else {}))}}
            for m in self.model_ids]})

