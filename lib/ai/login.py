"""GitHub's OAuth device flow (RFC 8628): how `ai login copilot` gets the
GitHub token that Copilot sessions are made from (ai/copilot.py). Imported
only by the login.

  POST {github}/login/device/code            form: client_id, scope=read:user
  -> {"device_code", "user_code", "verification_uri", "expires_in", "interval"}
  POST {github}/login/oauth/access_token     form: client_id, device_code,
       grant_type=urn:ietf:params:oauth:grant-type:device_code
  -> {"access_token", "token_type", "scope"}, or (also HTTP 200)
     {"error": "authorization_pending"}      not yet: poll again after interval
     {"error": "slow_down", "interval"?}     interval + 5 s (or the one given)
     {"error": "expired_token"}              the code expired
     {"error": "access_denied"}              the person refused
     {"error": other, "error_description"}   a bad client id, flow disabled...
  Both POSTs send Accept: application/json (else GitHub answers form text).

The person is shown user_code and verification_uri (outside text: the
caller prints them through the console's sanitizer), polled every interval
seconds until the code's expires_in runs out. Settings: copilot.github
(default https://github.com; GitHub Enterprise Server: https://HOST) and
copilot.client_id (default: the Copilot editor plugins' public OAuth app).
The token is stored as copilot.token (a secret: shown masked).
"""
import httpc
import jsonstream
import store
from ai.styles import quote

GITHUB = "https://github.com"
CLIENT_ID = "Iv1.b507a08c87ecfe98"
GRANT = "urn:ietf:params:oauth:grant-type:device_code"


def _post(url, form, timeout=30):
    """The JSON object GitHub answers; ValueError with a line otherwise."""
    h = {"Accept": "application/json",
         "Content-Type": "application/x-www-form-urlencoded"}
    try:
        with httpc.request("POST", url, h, form, timeout=timeout) as resp:
            try:
                doc = jsonstream.load(resp, max_value=2048)
            except jsonstream.JSONError:
                doc = None
            if not isinstance(doc, dict):
                raise ValueError("GitHub: HTTP %d, not a JSON object" % resp.status)
            if resp.status != 200 and not doc.get("error"):
                raise ValueError("GitHub: HTTP %d %s" % (resp.status, _text(doc.get("message"))))
            return doc
    except httpc.HTTPError as e:
        raise ValueError("GitHub: %s" % e)


def _text(v, n=200):
    return " ".join(v.split())[:n] if isinstance(v, str) else ""


def _seconds(v, default):
    return v if isinstance(v, int) and not isinstance(v, bool) and v >= 0 else default


def copilot(show, wait, clock):
    """Log in: show(user_code, verification_uri, expires_in_s) once,
    wait(seconds) between polls (KeyboardInterrupt from it cancels: nothing
    is stored), clock() -> seconds. Returns None, or an error line."""
    base = (store.get("copilot.github") or GITHUB).rstrip("/")
    cid = "client_id=" + quote(store.get("copilot.client_id") or CLIENT_ID)
    try:
        code = _post(base + "/login/device/code", cid + "&scope=read%3Auser")
        user, uri, device = code.get("user_code"), code.get("verification_uri"), \
            code.get("device_code")
        if not (isinstance(user, str) and isinstance(uri, str) and isinstance(device, str)):
            return "GitHub: %s" % (_text(code.get("error_description")) or
                                   _text(code.get("error")) or "no device code in the reply")
        interval = _seconds(code.get("interval"), 5)
        expires = _seconds(code.get("expires_in"), 900)
        t0 = clock()
        show(_text(user, 32), _text(uri, 200), expires)
        form = "%s&device_code=%s&grant_type=%s" % (cid, quote(device), quote(GRANT))
        while True:
            wait(interval)
            if clock() - t0 >= expires:
                return "the code expired before GitHub confirmed it; run ai login copilot again"
            doc = _post(base + "/login/oauth/access_token", form)
            token = doc.get("access_token")
            err = doc.get("error")
            if isinstance(token, str) and token:
                store.set("copilot.token", token)
                from ai import copilot
                copilot.forget()
                return None
            if err == "authorization_pending":
                continue
            if err == "slow_down":
                interval = max(interval + 5, _seconds(doc.get("interval"), 0))
                continue
            if err == "expired_token":
                return "the code expired before it was entered; run ai login copilot again"
            if err == "access_denied":
                return "the login was refused at GitHub (access_denied)"
            return "GitHub: %s" % (_text(doc.get("error_description")) or _text(err) or
                                   "no token in the reply")
    except ValueError as e:
        return str(e)
