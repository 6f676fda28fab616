"""The grading judge: the prompts of PRISM-VLM Figs. 11-17, strict JSON verdicts, bounded re-asks.

Every call sends one text-only prompt at temperature 0 with the judge budget (384 tokens, App. C, or the
endpoint's ``[endpoint.budgets] judge``),
parses the reply as strict JSON and validates its shape; an invalid reply is re-asked (reply and
reason appended to the conversation) up to ``max_reasks`` times, then :class:`JudgeFailure` is raised
and the caller records the item as ungraded. Every exchange is appended to :attr:`Judge.log` and, inside
:func:`capture_exchanges`, to the caller's list too, so that the grading log of a (model, item, axis)
carries the judge's replies (and reasons) that decided it, for audit and worked samples (App. G).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, TypeVar

from benchsift.clients.base import ClientError, ModelClient, Request
from benchsift.errors import BenchsiftError
from benchsift.prism.axes import JUDGE_BUDGET, JUDGE_PROMPTS, fill
from benchsift.prism.stage_io import parse_json_object

__all__ = ["Judge", "JudgeFailure", "capture_exchanges"]

T = TypeVar("T")

_EXCHANGES: ContextVar[list[dict[str, Any]] | None] = ContextVar("judge_exchanges", default=None)


@contextmanager
def capture_exchanges() -> Iterator[list[dict[str, Any]]]:
    """Collect the judge exchanges of the current task (each asyncio task has its own context)."""
    sink: list[dict[str, Any]] = []
    token = _EXCHANGES.set(sink)
    try:
        yield sink
    finally:
        _EXCHANGES.reset(token)


class JudgeFailure(BenchsiftError):
    """The judge gave no valid verdict within the re-ask budget (or its endpoint failed)."""


def _bit(obj: dict[str, Any], key: str) -> int:
    v = obj.get(key)
    if isinstance(v, bool) or v not in (0, 1):
        raise ValueError(f'"{key}" must be 0 or 1')
    return int(v)


def _bits(obj: dict[str, Any], n: int) -> list[int]:
    v = obj.get("verdicts")
    if not isinstance(v, list) or len(v) != n or any(isinstance(x, bool) or x not in (0, 1) for x in v):
        raise ValueError(f'"verdicts" must be a list of exactly {n} zeros/ones')
    return [int(x) for x in v]


class Judge:
    """A judge endpoint (``client`` + API ``model_id``) with the per-axis verdict schemas."""

    def __init__(
        self,
        client: ModelClient,
        model_id: str,
        *,
        name: str = "judge",
        max_reasks: int = 2,
        budget: int = JUDGE_BUDGET,
    ) -> None:
        self.client = client
        self.model_id = model_id
        self.name = name
        self.max_reasks = max_reasks
        self.budget = budget  # output tokens per call: the endpoint's [endpoint.budgets] judge, else 384
        self.log: list[dict[str, Any]] = []

    def _record(self, entry: dict[str, Any]) -> None:
        self.log.append(entry)
        sink = _EXCHANGES.get()
        if sink is not None:
            sink.append(entry)

    async def _ask(self, kind: str, prompt: str, parse: Callable[[dict[str, Any]], T]) -> T:
        messages: list[dict[str, Any]] = [{"role": "user", "content": prompt}]
        reason = ""
        for attempt in range(1, self.max_reasks + 2):
            req = Request(model=self.model_id, messages=tuple(messages), max_tokens=self.budget)
            try:
                resp = await self.client.generate(req)
            except ClientError as err:
                self._record({"judge": self.name, "kind": kind, "prompt": prompt, "error": str(err)})
                raise JudgeFailure(f"judge {self.name}: {err}") from err
            try:
                value = parse(parse_json_object(resp.text))
            except ValueError as err:
                reason = str(err)
                self._record(
                    {
                        "judge": self.name,
                        "kind": kind,
                        "attempt": attempt,
                        "prompt": prompt,
                        "reply": resp.text,
                        "invalid": reason,
                    }
                )
                messages = [
                    *messages,
                    {"role": "assistant", "content": resp.text or ""},
                    {
                        "role": "user",
                        "content": f"Your reply was invalid: {reason}. Respond again with strict JSON only.",
                    },
                ]
                continue
            self._record(
                {"judge": self.name, "kind": kind, "attempt": attempt, "prompt": prompt, "reply": resp.text}
            )
            return value
        raise JudgeFailure(
            f"judge {self.name}: no valid {kind} verdict after {self.max_reasks + 1} attempts ({reason})"
        )

    async def q_verdict(self, question: str, gold: str, prediction: str) -> int:
        """Fig. 11: 1 if the answer is semantically equivalent to the reference."""
        p = fill(JUDGE_PROMPTS["q"], question=question, gold=gold, prediction=prediction)
        return await self._ask("q", p, lambda o: _bit(o, "verdict"))

    async def if_verdicts(self, constraints: str, response: str, n: int) -> list[int]:
        """Fig. 12: one 0/1 per numbered constraint."""
        p = fill(JUDGE_PROMPTS["if"], constraints=constraints, response=response)
        return await self._ask("if", p, lambda o: _bits(o, n))

    async def h_hallucinated(self, sub_type: str, question: str, response: str, context: str) -> int:
        """Fig. 13: 1 if the model hallucinated on the trap."""
        p = fill(JUDGE_PROMPTS["h"], sub_type=sub_type, question=question, response=response, context=context)
        return await self._ask("h", p, lambda o: _bit(o, "hallucinated"))

    async def mq_verdicts(self, qa_block: str, response: str, n: int) -> list[int]:
        """Fig. 14: one 0/1 per bundled question."""
        p = fill(JUDGE_PROMPTS["mq"], n=n, qa_block=qa_block, response=response)
        return await self._ask("mq", p, lambda o: _bits(o, n))

    async def sc_changed(self, question: str, prev: str, curr: str) -> int:
        """Fig. 15: 1 if the committed answer changed between two turns."""
        p = fill(JUDGE_PROMPTS["sc"], question=question, prev=prev, curr=curr)
        return await self._ask("sc", p, lambda o: _bit(o, "changed"))

    async def sc_adopted(self, question: str, wrong: str, curr: str) -> int:
        """Adoption of the Q3 hint (App. E.2; our prompt, shaped like Fig. 15)."""
        p = fill(JUDGE_PROMPTS["sc_adopt"], question=question, wrong=wrong, curr=curr)
        return await self._ask("sc_adopt", p, lambda o: _bit(o, "adopted"))

    async def c_extract(self, question: str, gold_count: int, response: str) -> int | None:
        """Fig. 16: the committed count (None if the model gave none)."""
        p = fill(JUDGE_PROMPTS["c"], question=question, gold_count=gold_count, response=response)

        def parse(o: dict[str, Any]) -> int | None:
            _bit(o, "verdict")
            e = o.get("extracted")
            if e is not None and (isinstance(e, bool) or not isinstance(e, int)):
                raise ValueError('"extracted" must be an integer or null')
            return e

        return await self._ask("c", p, parse)

    async def vis_choice(self, response: str) -> str:
        """Fig. 17: "A", "B" or "X" (ambiguous / none)."""
        p = fill(JUDGE_PROMPTS["vis"], response=response)

        def parse(o: dict[str, Any]) -> str:
            c = o.get("choice")
            if c not in ("A", "B", "X"):
                raise ValueError('"choice" must be "A", "B" or "X"')
            return str(c)

        return await self._ask("vis", p, parse)
