"""Errors that ``core`` raises for bad arguments: a code, its parameters and an English text.

A :class:`CoreError` *is* a ``ValueError`` (callers and tests that expect ``ValueError`` keep
working), and it carries what the UI needs to say the same thing in the page's language:
``code`` names a string ``errors.<code>`` in ``assets/i18n/<lang>.json`` and ``params`` fill
its ``{placeholders}``. ``str(err)`` is the English message, made from the same template.

>>> err = CoreError("positive", "{name} must be positive, got {value}", name="T", value=-1)
>>> str(err), err.code, err.params
('T must be positive, got -1', 'positive', {'name': 'T', 'value': -1})
"""

from __future__ import annotations

from typing import Any


class CoreError(ValueError):
    """A bad argument, said in a way a student can act on.

    Attributes:
        code: the i18n key below ``errors.`` (``[a-z_]+``).
        params: the values the message names, by placeholder.
    """

    def __init__(self, code: str, template: str, **params: Any) -> None:
        self.code = code
        self.params = params
        super().__init__(template.format(**params))
