# Writes the property-list fixtures of StashCoreTests with Python's plistlib, an
# independent implementation of Apple's XML and binary formats. Run once:
#   python3 make-fixtures.py
# The expected value is spelled out again in PropertyListFixtureTests.swift.
import datetime
import plistlib

value = {
    "ascii": "hello, world",
    "unicode": "Grüße, 東京, emoji 🎉",
    "markup": "a < b & c > d \"quoted\" 'single'",
    "empty string": "",
    "long string": "a string longer than fifteen characters",
    "zero": 0,
    "small": 42,
    "byte edge": 255,
    "two bytes": 65535,
    "four bytes": 4294967295,
    "big": 9223372036854775807,
    "negative": -1,
    "most negative": -9223372036854775808,
    "real": 3.25,
    "negative real": -0.1,
    "tiny real": 1e-300,
    "true": True,
    "false": False,
    "date": datetime.datetime(2024, 2, 29, 13, 45, 30),
    "old date": datetime.datetime(1969, 7, 20, 20, 17, 40),
    "data": bytes(range(256)),
    "empty data": b"",
    "empty array": [],
    "empty dict": {},
    "list": list(range(20)),
    "nested": {"level": 1, "inner": {"level": 2, "items": ["x", {"deep": [True, 1.5]}]}},
}

with open("all-types.xml.plist", "wb") as f:
    plistlib.dump(value, f, fmt=plistlib.FMT_XML, sort_keys=True)
with open("all-types.binary.plist", "wb") as f:
    plistlib.dump(value, f, fmt=plistlib.FMT_BINARY, sort_keys=True)
with open("uid.binary.plist", "wb") as f:
    plistlib.dump({"object": plistlib.UID(7)}, f, fmt=plistlib.FMT_BINARY)
with open("huge-integer.binary.plist", "wb") as f:
    plistlib.dump({"huge": 18446744073709551615}, f, fmt=plistlib.FMT_BINARY)
