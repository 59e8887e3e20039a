"""Card numbers and passphrases given as words, with the look-alikes that must still pass (issue 35), in two halves.

``TUNE`` is the half the detectors were tuned on; ``HELD`` was written at the same time, before any tuning, and
not read while tuning: its figures say how the screen does on cases it was not fitted to. Both halves are run
by ``benchmarks/secrets_screen.py`` (refusals and false refusals per half) and by
``tests/privacy/test_secrets_cards.py``. Every card number is a published test number or a made-up one with a
valid check digit; none is a real card.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Half:
    secrets: tuple[str, ...]
    """Texts the screen must refuse."""
    look_alikes: tuple[str, ...]
    """Texts it must accept."""


TUNE = Half(
    secrets=(
        # card numbers: grouped or not, with or without expiry and CVV
        "card 4111 1111 1111 1111 exp 12/27 cvv 123",
        "My Visa is 4012888888881881, expires 09/26.",
        "use 5555-5555-5555-4444 for the team lunch",
        "Amex 3782 822463 10005, CVV 4321",
        "5105105105105100 09/28 731",
        "charge it to 6011 1111 1111 1117",
        "Diners 3056 9309 0259 04",
        "cc: 4222222222222",
        "here's the company card: 2223 0031 2200 3222 exp 03/29",
        "JCB 3530-1113-3330-0000",
        "pay with 4242424242424242 please",
        "debit card number 6759 6498 2643 8453",
        "card 4917 6100 0000 0000 003",
        # passphrases given as words
        "note: velvet tiger orchard lamp is the passphrase",
        "the passphrase is maple river candle north",
        "password: quantum fiddle orange basket",
        "my passphrase: silver moon tractor pudding",
        "Passphrase = cobalt meadow tinsel frog",
        "blue harbor seven lanterns is my wifi password",
        "the vault password is 'plum cedar rocket whisper'",
        "My backup passphrase - lemon garage violin sparrow",
    ),
    look_alikes=(
        "Order 112-4567890-1234567 shipped today.",
        "order number 1124567890123455 was refunded",
        "ISBN 978-0-306-40615-7",
        "ISBN 9781492056359 is the second edition",
        "Call me at +1 415 555 0132",
        "Tracking number 9400111899223100023456",
        "UPS tracking 1Z999AA10123456784",
        "The meeting is on 2024-05-17 at 10:00",
        "ticket id 4111111111111112",
        "device id 5555 5555 5555 4445",
        "the password reset link was sent to your email",
        "I keep forgetting my password",
        "the passphrase should be four words or more",
        "IMEI 356938035643809",
        "invoice INV-2024-000123456789",
        "account 4000 1234 5678 9010 was closed",
        "build 20240517123045 passed",
        "timestamp 1717171717171 ms",
        "Reference 7489 2210 3345 6614",
        "the card expires 12/27, ask finance for the number",
        "use a passphrase like four random words",
        "passphrase is required for the ssh key",
        "my password manager is great",
        "the CVV is on the back of the card",
        "The conference bridge is 1 800 555 0199",
        "Sprint 42 ends on 05/31/2024.",
    ),
)

HELD = Half(
    secrets=(
        "Card: 5425 2334 3010 9903, exp 11/27, CVC 882",
        "Her Visa 4263982640269299 expires next March",
        "amex 374245455400126",
        "billing card is 6250-9410-0652-8599",
        "put the hotel on 3566 0020 2036 0505 (exp 02/28, security code 318)",
        "4035 5010 0000 0008",
        "Mastercard 2222 4200 0000 1113",
        "saved my card 4988438843884305 in the notes",
        "Diners Club 3622 720627 1667",
        "the corporate card number is 5200828282828210 and the CVV is 737",
        "cc 4539 1488 0343 6467 12/26 123",
        "the passphrase is anchor bramble cotton dusk",
        "PASSWORD: garnet hollow ribbon tundra",
        "my passphrase: fennel castle marble ocean",
        "gravel pepper yellow kite is the passphrase for the backup drive",
        "The laptop password is sunset crayon lobster pine.",
        "our shared passphrase was 'tulip engine comet sable'",
        "remember: pickle orbit walnut drum is my passphrase",
        "Wifi password: copper lantern mango bridge",
    ),
    look_alikes=(
        "Order #302-0000012-3456110 is delayed",
        "order id 4000123456789017 was cancelled",
        "ISBN-13: 978-1-4920-5635-9",
        "phone: +44 20 7946 0958",
        "FedEx tracking 6034567890123453",
        "my number is 415-555-0132",
        "the password reset email never arrived",
        "passwords must contain four words",
        "part number 520012345678904",
        "The invoice 2024-000123-4567 is paid",
        "Serial 1001 2233 4455 6677",
        "dates: 2023-11-02 to 2023-11-09",
        "Account id 9812345678901230 belongs to the Acme tenant",
        "We changed the passphrase yesterday",
        "the passphrase is stored in the team vault",
        "Flight LH 4001 departs at 10:45",
        "IBAN DE89 3704 0044 0532 0130 00",
        "EAN barcode 4006381333931",
        "Hotel confirmation 48201938478",
        "the card was declined, I'll send a new one",
        "a good passphrase is four or five random words",
    ),
)

HALVES = {"tune": TUNE, "held": HELD}
