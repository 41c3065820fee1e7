"""The parsers the settings table names: each turns a switch's text into its value or raises
BadValue saying what is accepted. Stdlib only and import-free, so the table stays cheap."""


class BadValue(ValueError):
    """A malformed value; ``accepted`` says what the setting takes."""

    def __init__(self, accepted):
        super().__init__(accepted)
        self.accepted = accepted


_TRUE = ("1", "true", "yes", "on")
_FALSE = ("0", "false", "no", "off")


class Flag:
    """1 / 0 (also true/false, yes/no, on/off, any case)."""

    accepted = "1 or 0 (also true/false, yes/no, on/off)"

    def __init__(self, default=False):
        self.default = default

    def __call__(self, text):
        low = text.lower()
        if low in _TRUE:
            return True
        if low in _FALSE:
            return False
        raise BadValue(self.accepted)


class Choice:
    """One of fixed words (any case); ``meaning`` maps a word to the value it stands for."""

    def __init__(self, words, default=None, meaning=None):
        self.words, self.default, self.meaning = tuple(words), default, dict(meaning or {})
        self.accepted = ", ".join(self.words)

    def __call__(self, text):
        low = text.lower()
        if low not in self.words:
            raise BadValue(self.accepted)
        return self.meaning.get(low, low)


class IntRange:
    """An integer in [low, high]."""

    def __init__(self, low, high, default=None):
        self.low, self.high, self.default = low, high, default
        self.accepted = "an integer in %d..%d" % (low, high)

    def __call__(self, text):
        try:
            value = int(text)
        except ValueError:
            raise BadValue(self.accepted) from None
        if not self.low <= value <= self.high:
            raise BadValue(self.accepted)
        return value


class Text:
    """Free text checked by its reader (a path, a list the reader validates, a name).
    Never malformed here; the reader that knows the domain warns or raises."""

    accepted = "any text"

    def __init__(self, what, default=None):
        self.what, self.default = what, default
        self.accepted = what

    def __call__(self, text):
        return text


class Names:
    """A comma (or semicolon) list of lower-case names, or ``*``."""

    def __init__(self, what, default=()):
        self.what, self.default = what, default
        self.accepted = what

    def __call__(self, text):
        return tuple(p.strip().lower() for p in text.replace(";", ",").split(",") if p.strip())


class JSONObject:
    """A JSON object (names torchada writes for its own children)."""

    accepted = "a JSON object"

    @property
    def default(self):  # a fresh dict each time: a caller may fill it in
        return {}

    def __call__(self, text):
        import json

        try:
            value = json.loads(text)
        except ValueError:
            raise BadValue(self.accepted) from None
        if not isinstance(value, dict):
            raise BadValue(self.accepted)
        return value


class Pattern:
    """Text matching a regular expression; ``convert`` turns the match into the value."""

    def __init__(self, regex, accepted, default=None, convert=None):
        self.regex, self.accepted, self.default = regex, accepted, default
        self.convert = convert or (lambda match: match.group(0))
        self._compiled = None

    def __call__(self, text):
        if self._compiled is None:
            import re

            self._compiled = re.compile(self.regex)
        match = self._compiled.fullmatch(text)
        if match is None:
            raise BadValue(self.accepted)
        return self.convert(match)


class Lazy:
    """A parser function that lives with the code that owns the format (imported at the first
    value, not with the table); any ValueError it raises makes the value malformed."""

    def __init__(self, target, accepted, default=None):
        self.target, self.accepted, self.default = target, accepted, default

    def __call__(self, text):
        import importlib

        module, _, name = self.target.partition(":")
        func = getattr(importlib.import_module(module), name)
        try:
            return func(text)
        except ValueError:
            raise BadValue(self.accepted) from None
