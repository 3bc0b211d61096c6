"""The broker address and the paho-mqtt client both sides use.

``mqtt://HOST:PORT`` is plain MQTT (port 1883 by default), ``mqtts://HOST:PORT`` is MQTT
over TLS (8883 by default; the system's certificate authorities, or ``?ca=/path/ca.crt``
for a broker with its own). Clients speak MQTT 5 with a persistent session, so the
broker keeps what a client has not yet acknowledged while it is away.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, urlsplit

if TYPE_CHECKING:
    import paho.mqtt.client as mqtt

SESSION_EXPIRY = 7 * 24 * 3600
"""Seconds the broker keeps a client's session (subscriptions, unsent messages)."""
KEEPALIVE = 15
"""Seconds between pings: how soon a dead connection is noticed (the will sent)."""


class BadBrokerURL(ValueError):
    """A broker address that cannot be used; the message shows the right form."""


@dataclass(frozen=True)
class BrokerURL:
    host: str
    port: int
    tls: bool = False
    ca: str | None = None

    def __str__(self) -> str:
        return f"{'mqtts' if self.tls else 'mqtt'}://{self.host}:{self.port}"


def parse_url(text: str) -> BrokerURL:
    """``mqtt://127.0.0.1:1883`` → ``BrokerURL("127.0.0.1", 1883)``."""
    try:
        url = urlsplit(text)
        port = url.port
    except ValueError as err:
        raise BadBrokerURL(f"{text!r} is not a broker address ({err}); write "
                           "mqtt://HOST:PORT") from None
    if url.scheme not in ("mqtt", "mqtts") or not url.hostname:
        raise BadBrokerURL(f"{text!r} is not a broker address: write mqtt://HOST:PORT "
                           "(or mqtts://HOST:PORT for TLS)")
    if url.path not in ("", "/") or url.username or url.password:
        raise BadBrokerURL(f"{text!r}: give only mqtt://HOST:PORT (the user name and "
                           "password go in hub_username / hub_password)")
    tls = url.scheme == "mqtts"
    ca = parse_qs(url.query).get("ca", [None])[0]
    return BrokerURL(url.hostname, port or (8883 if tls else 1883), tls, ca)


def client(client_id: str, url: BrokerURL, username: str | None,
           password: str | None) -> mqtt.Client:
    """A paho client (MQTT 5, callback API 2) set up for ``url``; not yet connected."""
    import paho.mqtt.client as mqtt

    c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=client_id,
                    protocol=mqtt.MQTTv5)
    if username:
        c.username_pw_set(username, password)
    if url.tls:
        c.tls_set(ca_certs=url.ca)
    c.reconnect_delay_set(1, 4)
    c.max_inflight_messages_set(100)
    return c


def connect_properties() -> Any:
    """CONNECT properties of a persistent session."""
    from paho.mqtt.packettypes import PacketTypes
    from paho.mqtt.properties import Properties

    props = Properties(PacketTypes.CONNECT)
    props.SessionExpiryInterval = SESSION_EXPIRY
    return props


def connect_async(c: mqtt.Client, url: BrokerURL) -> None:
    """Start connecting in the background (paho reconnects by itself after that)."""
    c.connect_async(url.host, url.port, keepalive=KEEPALIVE, clean_start=False,
                    properties=connect_properties())
    c.loop_start()


def refusal(reason_code: Any) -> str | None:
    """What a failed CONNACK, PUBACK or SUBACK reason code means, ``None`` if it is a
    success."""
    if reason_code is None or not getattr(reason_code, "is_failure", False):
        return None
    return str(reason_code)
