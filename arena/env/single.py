"""One seat as a Gymnasium environment, against built-in levels or participant commands.

    from arena.env.single import SeatEnv
    table = SeatEnv(["hard"])  # or ["hard", ["python3", "my_bot.py"]]: one seat each
    observation, info = table.reset(seed=7)
    while True:
        legal = observation["action_mask"].nonzero()[0]
        observation, reward, terminated, truncated, info = table.step(int(legal[0]))
        if terminated or truncated:
            break
    table.close()

The match is played by the arena's one match loop (`referee.loop.play_match`) in a thread of
its own, with the opponents seated as `arena run` seats them (`seating.make_participants`:
built-in levels in process, commands as sandboxed subprocesses whose faults are recorded);
the learning seat is an in-process participant that hands each decision to `step`.
Observations and actions are those of `arena.env.raw_env` for that seat. `info["record"]`,
at the end, is the match's `MatchRecord` (transcript, faults, events).
"""

from __future__ import annotations

import queue
import random
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import gymnasium

from arena.base.config import Entrant, LimitsSection, bot_command, resolve_program
from arena.engine.match import MatchSetup, Outcome
from arena.engine.rules import Rules
from arena.env.aec import Draws, Reward, chosen_rules, raw_env
from arena.env.encoding import DECISIONS, SeatView, action_mask, pond_size, reply_for
from arena.referee.loop import MatchRecord, play_match
from arena.referee.seating import make_participants
from arena.seats.in_process import InProcessParticipant
from arena.seats.replies import Participant

Opponent = str | Sequence[str]  # a built-in level, or a command's argument list
_STOP = object()


class SeatEnv(gymnasium.Env[dict[str, Any], int]):
    """Seat `seat` of a match against `opponents` (one per other seat, in seat order)."""

    metadata = {"render_modes": []}  # noqa: RUF012 (Gymnasium's attribute)

    def __init__(
        self,
        opponents: Sequence[Opponent] = ("hard",),
        *,
        seat: int = 0,
        rules: Rules | str | Path | None = None,
        draws: Draws = "random",
        reward: Reward = "places",
        limits: LimitsSection | None = None,
        **settings: Any,
    ) -> None:
        self.seats = len(opponents) + 1
        if not 0 <= seat < self.seats:
            raise ValueError(f"seat: 0 .. {self.seats - 1}, got {seat}")
        self.seat = seat
        self.rules = chosen_rules(rules, settings)
        # The spaces, the reward and the reply of an action are the AEC environment's.
        self._shape = raw_env(self.seats, self.rules, draws=draws, reward=reward)
        self.draws = draws
        self.limits = limits or LimitsSection(sandbox="auto")
        self.observation_space = self._shape.observation_space("seat_0")
        self.action_space = self._shape.action_space("seat_0")
        self.opponents = [self._seat_of(opponent, n) for n, opponent in enumerate(opponents)]
        self._thread: threading.Thread | None = None
        self._to_agent: queue.Queue[tuple[str, Any]] = queue.Queue()
        self._to_seat: queue.Queue[Any] = queue.Queue()
        self._stopping = False
        self._rng = random.Random()
        self.view = SeatView(seat, self.seats, self.rules.pack_size)
        self._message: dict[str, Any] = {"type": "none"}
        self._inbox: list[dict[str, Any]] = []

    @staticmethod
    def _seat_of(opponent: Opponent, number: int) -> Entrant:
        if isinstance(opponent, str):
            return Entrant(
                name=f"{opponent}-{number + 1}",
                command=bot_command(opponent),
                cwd=Path.cwd(),
                env={},
                bot=opponent,
            )
        command = list(opponent)
        program = resolve_program(command[0], Path.cwd())
        return Entrant(
            name=f"{Path(command[-1]).stem}-{number + 1}",
            command=(program, *command[1:]),
            cwd=Path.cwd(),
            env={},
        )

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        super().reset(seed=seed)
        self._stop()
        if seed is None:
            seed = int(self.np_random.integers(2**62))
        names = [seat.name for seat in self.opponents]
        names.insert(self.seat, "agent")
        setup = MatchSetup.from_seed(seed, names, self.rules, **self.limits.match_options())
        self._rng = random.Random(f"draws:{seed}")
        self.view = SeatView(self.seat, self.seats, self.rules.pack_size)
        self._inbox = []
        self._stopping = False
        self._to_agent, self._to_seat = queue.Queue(), queue.Queue()
        participants: list[Participant] = list(
            make_participants(self.opponents, self.limits, in_process_bots=True)
        )
        participants.insert(self.seat, InProcessParticipant(self._decide))
        self._thread = threading.Thread(
            target=self._play, args=(setup, participants), name="arena-seat-env", daemon=True
        )
        self._thread.start()
        observation, _, _, _, info = self._next()
        return observation, info

    def step(self, action: int) -> tuple[dict[str, Any], float, bool, bool, dict[str, Any]]:
        if self._thread is None:
            raise RuntimeError("step() before reset()")
        self._inbox = []
        self._to_seat.put(reply_for(self.view, self._message, int(action)))
        return self._next()

    def close(self) -> None:
        self._stop()

    # --- the seat's side, in the match loop's thread ---------------------------------------

    def _play(self, setup: MatchSetup, participants: list[Participant]) -> None:
        try:
            record = play_match(setup, participants, self.limits, should_stop=self._stopped)
            self._to_agent.put(("over", record))
        except BaseException as error:  # noqa: BLE001 - handed to the caller's thread
            self._to_agent.put(("error", error))

    def _stopped(self) -> bool:
        return self._stopping

    def _decide(self, message: dict[str, Any]) -> Any:
        """The learning seat's reply to one message (an informational one: null)."""
        self.view.see(message)
        self._inbox.append(message)
        kind = message["type"]
        if kind not in DECISIONS or self._stopping:
            return None
        if kind != "ask" and self.draws == "random":
            return self._rng.randrange(pond_size(message))
        self._message = message
        self._to_agent.put(("decide", message))
        reply = self._to_seat.get()
        return None if reply is _STOP else reply

    # --- the agent's side ----------------------------------------------------------------

    def _next(self) -> tuple[dict[str, Any], float, bool, bool, dict[str, Any]]:
        kind, value = self._to_agent.get()
        if kind == "error":
            raise value
        if kind == "decide":
            info: dict[str, Any] = {"messages": list(self._inbox)}
            return self._observation(), 0.0, False, False, info
        record: MatchRecord = value
        self._thread = None
        result = record.result
        cut = result.outcome in (Outcome.TURN_LIMIT, Outcome.STALLED, Outcome.INTERRUPTED)
        reward = result.reward(self.seat, self._shape.reward_kind)
        info = {
            "messages": list(self._inbox),
            "outcome": str(result.outcome),
            "books": result.scores[self.seat],
            "place": result.places[self.seat],
            "record": record,
        }
        self._message = {"type": "none"}
        return self._observation(), reward, not cut, cut, info

    def _observation(self) -> dict[str, Any]:
        return {
            "observation": self.view.vector(),
            "action_mask": action_mask(self.view, self._message, self._shape.actions),
            "message": self._message,
        }

    def _stop(self) -> None:
        """End a match in progress: the loop stops at its next message, every process reaped."""
        thread = self._thread
        if thread is None:
            return
        self._stopping = True
        self._to_seat.put(_STOP)
        thread.join()
        self._thread = None
