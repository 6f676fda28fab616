"""The proxy the environment sets for a URL, by the rules of the ``openai`` SDK's HTTP library, so the
aiohttp transport routes every request as the ``openai`` transport does.

A mirror of httpx2 2.17 (``_utils.py``: ``get_environment_proxies`` and ``URLPattern``; httpx's rules are
the same), read once per transport (:class:`~benchsift.clients.transport.AiohttpTransport`):

* the proxies: ``http``, ``https`` and ``all`` from :func:`urllib.request.getproxies` (``HTTP_PROXY`` /
  ``http_proxy``, ``HTTPS_PROXY``, ``ALL_PROXY``; the lower-case name first), each a pattern ``<scheme>://``
  (``all://``: every scheme); a proxy without a scheme is ``http://<proxy>``;
* ``NO_PROXY``, comma-separated: ``*`` turns every proxy off; ``<scheme>://<host>[:port]`` as written; an IPv4
  or IPv6 address, or a CIDR network (``10.0.0.0/8``, ``::1/128``), matches that address or network;
  ``localhost`` and ``[...]`` that host only; ``.example.com`` and ``*.example.com`` the subdomains of
  ``example.com`` but not itself; ``example.com`` that host and its subdomains, and ``host:port`` (``*host``
  with a port) only on that port. Any other entry (a path, an unparsable one) is ignored;
* a URL takes the first pattern that matches it, most specific first: with a port before without, a host
  before a network (the smaller first) before no host, the longer host first, then the longer scheme (so
  ``HTTP_PROXY`` wins over ``ALL_PROXY``, and ``NO_PROXY`` over both). A default port (80 for ``http``, 443
  for ``https``) counts as no port, in a pattern as in the URL.
"""

from __future__ import annotations

import ipaddress
import re
import urllib.parse
import urllib.request
from dataclasses import dataclass

__all__ = ["env_proxy"]

_DEFAULT_PORTS = {"ftp": 21, "http": 80, "https": 443, "ws": 80, "wss": 443}


def _is_ip(hostname: str, version: type[ipaddress.IPv4Address | ipaddress.IPv6Address]) -> bool:
    try:
        version(hostname.split("/")[0])
    except ValueError:
        return False
    return True


def _no_proxy_pattern(entry: str) -> str | None:
    """The pattern of one ``NO_PROXY`` entry (httpx's ``get_environment_proxies``), or None (ignored)."""
    if "://" in entry:
        return entry
    if _is_ip(entry, ipaddress.IPv4Address) or entry.lower() == "localhost" or entry.startswith("["):
        return f"all://{entry}"
    if _is_ip(entry, ipaddress.IPv6Address):
        addr, slash, subnet = entry.partition("/")
        return f"all://[{addr}]/{subnet}" if slash else f"all://[{entry}]"
    if "/" in entry:
        return None
    return f"all://{entry}" if entry.startswith("*.") else f"all://*{entry}"


@dataclass(frozen=True)
class _URL:
    """A URL as httpx compares it: scheme, lower-case host (IPv6 without brackets), port (None: default)."""

    scheme: str
    host: str
    port: int | None
    path: str

    @classmethod
    def of(cls, url: str) -> _URL:
        parts = urllib.parse.urlsplit(url)  # ValueError: a port that is no number or out of range
        scheme = parts.scheme.lower()
        port = parts.port
        return cls(
            scheme, (parts.hostname or ""), None if port == _DEFAULT_PORTS.get(scheme) else port, parts.path
        )


class _Pattern:
    """httpx's ``URLPattern``: ``all://``, ``https://``, ``all://*example.com``, ``all://10.0.0.0/8``, ..."""

    def __init__(self, pattern: str) -> None:
        url = _URL.of(pattern)
        self.network: ipaddress.IPv4Network | ipaddress.IPv6Network | None = None
        prefix = url.path.removeprefix("/")
        if prefix and (_is_ip(url.host, ipaddress.IPv4Address) or _is_ip(url.host, ipaddress.IPv6Address)):
            host = f"[{url.host}]" if ":" in url.host else url.host
            if (
                "@" in pattern
                or "%" in pattern
                or not prefix.isdigit()
                or not pattern.endswith(f"{host}/{prefix}")
            ):
                raise ValueError(f"invalid network in {pattern!r}")
            self.network = ipaddress.ip_network(f"{url.host}/{prefix}", strict=False)
        self.scheme = "" if url.scheme == "all" else url.scheme
        self.host = "" if url.host == "*" else url.host
        self.port = url.port
        self.regex: re.Pattern[str] | None = None
        if self.network is None and self.host:
            if self.host.startswith("*."):  # subdomains only
                self.regex = re.compile(f"^.+\\.{re.escape(self.host[2:])}$")
            elif self.host.startswith("*"):  # the domain and its subdomains
                self.regex = re.compile(f"^(.+\\.)?{re.escape(self.host[1:])}$")
            else:
                self.regex = re.compile(f"^{re.escape(self.host)}$")

    def matches(self, url: _URL) -> bool:
        if self.scheme and self.scheme != url.scheme:
            return False
        if self.network is not None:
            try:
                if ipaddress.ip_address(url.host) not in self.network:
                    return False
            except ValueError:
                return False
        elif self.regex is not None and not self.regex.match(url.host):
            return False
        return self.port is None or self.port == url.port

    @property
    def priority(self) -> tuple[int, int, int, int, int]:
        kind = 1 if self.network is not None else 0 if self.host else 2
        size = self.network.num_addresses if self.network is not None else 0
        length = -len(self.host) if self.network is None else 0
        return (0 if self.port is not None else 1, kind, size, length, -len(self.scheme))


def _routes() -> list[tuple[_Pattern, str | None]]:
    """The environment's patterns, most specific first, each with its proxy URL (None: no proxy)."""
    info = urllib.request.getproxies()
    mounts: dict[str, str | None] = {}
    for scheme in ("http", "https", "all"):
        if info.get(scheme):
            url = info[scheme]
            mounts[f"{scheme}://"] = url if "://" in url else f"http://{url}"
    for entry in (e.strip() for e in info.get("no", "").split(",")):
        if entry == "*":
            return []
        pattern = _no_proxy_pattern(entry) if entry else None
        if pattern is not None:
            mounts[pattern] = None
    routes: list[tuple[_Pattern, str | None]] = []
    for key, proxy in mounts.items():
        try:
            routes.append((_Pattern(key), proxy))
        except ValueError:  # like httpx (and curl, Go): an entry that cannot be parsed is ignored
            continue
    return sorted(routes, key=lambda route: route[0].priority)  # stable: ties keep the environment's order


def env_proxy(url: str) -> str | None:
    """The proxy URL the environment sets for ``url`` (the ``openai`` SDK's rules), or None: go direct."""
    target = _URL.of(url)
    for pattern, proxy in _routes():
        if pattern.matches(target):
            return proxy
    return None
