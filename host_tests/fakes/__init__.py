"""Loopback fake LLM provider servers for host tests (CPython only).

    from fakes import FakeOpenAI, FakeAnthropic, FakeGemini, FakeTextOnly, FakeResponses
    from fakes import FakeGitHub     (GitHub's device flow + Copilot)
    from fakes import Text, Calls, Fail, Think, Blocked, Raw, Drop
"""

from .base import Blocked, Calls, Drop, Fail, Raw, Request, Text, Think, make_signature
from .openai import FakeOpenAI
from .anthropic import FakeAnthropic
from .gemini import FakeGemini
from .textonly import FakeTextOnly
from .responses import FakeResponses
from .github import FakeGitHub

__all__ = ["FakeOpenAI", "FakeAnthropic", "FakeGemini", "FakeTextOnly", "FakeResponses", "FakeGitHub",
           "Text",
           "Calls", "Fail", "Think", "Blocked", "Raw", "Drop", "Request",
           "make_signature"]
