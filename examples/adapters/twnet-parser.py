"""teeoracle conform adapter for twnet-parser (Python, 0.6 and 0.7 packets,
https://pypi.org/project/twnet-parser/).

    python examples/adapters/twnet-parser.py info|decode packet06|decode packet07|batch

Each datagram goes to `twnet_parser.packet.parse6` / `parse7` with
`ignore_errors=True`: the unit rejects only a datagram without a readable
header, so the library's strict mode (which raises on bytes after the last
chunk) would turn every such packet into a rejection; an exception in the
lenient mode is still a rejection.

What the library exposes, mapped into a PACKET (src/schema.md, `packet_decode`):
the header's flags (as booleans: the number is rebuilt from them, so bits the
library does not know are lost), ack, chunk count and tokens; each chunk's
flags, sequence and size; each message's kind and id. Message names and
fields are left out (the library has its own names, not DDNet's), and so are
the DDNet verdict, compression details, bytes after the chunks and the
re-encode check, which it does not report.
"""

import sys
from importlib.metadata import version

from twnet_parser import packet as twpacket
from twnet_parser.packet6 import (
    PACKETFLAG6_COMPRESSION,
    PACKETFLAG6_CONNLESS,
    PACKETFLAG6_CONTROL,
    PACKETFLAG6_RESEND,
    PACKETFLAG6_TOKEN,
)
from twnet_parser.packet7 import (
    PACKETFLAG7_COMPRESSION,
    PACKETFLAG7_CONNLESS,
    PACKETFLAG7_CONTROL,
    PACKETFLAG7_RESEND,
)

from contract import Rejected, main

FIELDS = [
    "packet.form",
    "packet.control",
    "packet.flags",
    "packet.ack",
    "packet.num_chunks",
    "packet.resend_requested",
    "packet.token",
    "packet.header_token",
    "packet.response_token",
    "packet.payload",
    "packet.control_message.id",
    "packet.chunks[].flags",
    "packet.chunks[].vital",
    "packet.chunks[].resend",
    "packet.chunks[].seq",
    "packet.chunks[].size",
    "packet.chunks[].message.system",
    "packet.chunks[].message.id",
]

# 0.6 has no header token and no connectionless response token.
FIELDS_06 = [f for f in FIELDS if f not in ("packet.header_token", "packet.response_token")]
INFO = {
    "name": "twnet-parser",
    "version": version("twnet-parser"),
    "units": {
        "packet06": {"decode": True, "encode": False, "fields": FIELDS_06},
        "packet07": {"decode": True, "encode": False, "fields": FIELDS},
    },
}

FLAG_BITS = {
    "0.6": [
        ("token", PACKETFLAG6_TOKEN),
        ("control", PACKETFLAG6_CONTROL),
        ("connless", PACKETFLAG6_CONNLESS),
        ("resend", PACKETFLAG6_RESEND),
        ("compression", PACKETFLAG6_COMPRESSION),
    ],
    "0.7": [
        ("control", PACKETFLAG7_CONTROL),
        ("resend", PACKETFLAG7_RESEND),
        ("compression", PACKETFLAG7_COMPRESSION),
        ("connless", PACKETFLAG7_CONNLESS),
    ],
}


def chunk(msg):
    head = msg.header
    vital, resend = bool(head.flags.vital), bool(head.flags.resend)
    message = {"system": bool(msg.system_message)}
    # The library marks DDNet's extended (UUID) messages as id 0 named
    # `ddnet_uuid` without reading the UUID; the canonical form has no id there.
    if msg.message_name != "ddnet_uuid":
        message["id"] = msg.message_id
    return {
        "flags": int(vital) | int(resend) << 1,
        "vital": vital,
        "resend": resend,
        "seq": head.seq if vital else None,
        "size": head.size,
        "message": message,
    }


def packet(data, ver):
    pck = (twpacket.parse6 if ver == "0.6" else twpacket.parse7)(data, ignore_errors=True)
    head = pck.header
    flags = head.flags
    if flags.connless:
        out = {"form": "connless06" if ver == "0.6" else "connless07"}
        if ver == "0.7":
            out["token"] = head.token.hex()
            out["response_token"] = head.response_token.hex()
        out["payload"] = pck.payload_raw.hex()
        return {"packet": out}
    out = {
        "form": "connection",
        "control": bool(flags.control),
        "flags": sum(bit for name, bit in FLAG_BITS[ver] if getattr(flags, name)),
        "ack": head.ack,
        "num_chunks": head.num_chunks,
        "resend_requested": bool(flags.resend),
    }
    if ver == "0.7":
        out["header_token"] = head.token.hex()
    elif pck.is_ddnet and head.token:
        # The library keeps DDNet's CONNECT token inside its CONNECT message
        # (`TKEN` and ff ff ff ff), not as the packet's token: none is known.
        out["token"] = head.token.hex()
    if flags.control:
        if not pck.messages:
            raise Rejected("no control message")
        out["control_message"] = {"id": pck.messages[0].message_id}
    else:
        out["chunks"] = [chunk(m) for m in pck.messages]
    return {"packet": out}


if __name__ == "__main__":
    sys.exit(
        main(
            INFO,
            {
                "packet06": lambda data: packet(data, "0.6"),
                "packet07": lambda data: packet(data, "0.7"),
            },
        )
    )
