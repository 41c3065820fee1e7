"""Rule tables: size, domains, no redundancy, no self-references, evidence notes."""
import re

import pytest

from torchada.porting.engine import Porter, port_text
from torchada.porting.rules import DOMAINS, tables

WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def test_at_least_400_rules_across_all_domains():
    counts = tables().counts()
    assert sum(counts.values()) >= 400
    assert set(counts) == set(DOMAINS)
    assert all(n > 0 for n in counts.values()), counts


def test_no_rule_maps_to_itself_or_to_another_key():
    """No identity rules, and no replacement contains a key: porting output never matches
    again (the basis of idempotence) and no ``#define X X`` can be produced by a rule."""
    t = tables()
    keys = set(t.identifiers) | set(t.literals)
    for key, (value, domain) in list(t.identifiers.items()) + list(t.literals.items()):
        assert key != value, (domain, key)
        for word in WORD.findall(value):
            assert word not in t.identifiers, (domain, key, value)
        for prefix in t.prefixes:
            assert not any(w.startswith(prefix) for w in WORD.findall(value)), (key, value)
    for key, (value, domain) in t.includes.items():
        assert key != value, (domain, key)
        assert value not in t.includes, (domain, key)


def test_no_rule_is_redundant_with_another():
    """A rule is redundant when the other rules already produce its output."""
    t = tables()
    full = Porter()
    for key, (value, domain) in t.identifiers.items():
        for prefix, (pvalue, _) in t.prefixes.items():
            assert not (key.startswith(prefix) and pvalue + key[len(prefix):] == value), key
    for key, (value, domain) in t.literals.items():
        # a qualified literal must do something the identifier rules alone would not
        parts = re.split(r"(\W+)", key)
        composed = "".join(full.ident.get(p, (p,))[0] if WORD.fullmatch(p or "-") else p
                           for p in parts)
        assert composed != value, (domain, key)
    for key, (value, domain) in t.includes.items():
        for prefix, (pvalue, _) in t.include_prefixes.items():
            assert not (key.startswith(prefix) and pvalue + key[len(prefix):] == value), key


def test_not_evidenced_names_are_real_keys():
    t = tables()
    for domain, keys in t.not_evidenced().items():
        mod = t.modules[domain]
        known = set()
        for kind in ("IDENTIFIERS", "PREFIXES", "LITERALS", "INCLUDES", "INCLUDE_PREFIXES",
                     "NOOP_CALLS"):
            known |= set(getattr(mod, kind, {}))
        assert keys <= known, (domain, keys - known)


@pytest.mark.parametrize("domain", DOMAINS)
def test_every_identifier_rule_applies_as_a_whole_identifier(domain):
    t = tables()
    for key, (value, dom) in t.identifiers.items():
        if dom != domain:
            continue
        text = "x(%s); y_%s; %sZ;" % (key, key, key)
        assert port_text(text).text == "x(%s); y_%s; %sZ;" % (value, key, key), key
