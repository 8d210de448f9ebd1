"""The network-alone agent by name: ``make_agent("networks:casino")`` plays a preset's shipped
afterstate value networks (issue 18), no search and no policy.

Before the last deal a network of scope ``before_last`` (``experiments.midgame_net``: fitted to
rollout values, seen without the opponent's hand) picks among the heuristic's best-scored
moves; on the two-player last deal one of scope ``last_deal`` (``experiments.endgame_net``:
fitted to exact values) picks among all legal moves (one fitted only from a number of cards in
hand, ``max_cards``, leaves the decisions above it to the heuristic); a decision with one legal
move needs neither. The heuristic's scores pick the candidates and are inputs of the networks,
never the move. ``midgame_net=PATH`` / ``endgame_net=PATH`` replace the shipped network of that
scope (a preset that ships none needs both); ``midgame_prior=W`` adds W times the heuristic's
score of each candidate to its value before the last deal (default 0), ``midgame_candidates=K``
has it choose among the heuristic's K best-scored moves instead of the count its network was
fitted on (0: every legal move), ``midgame_samples=N`` values a move that ends a round (its
afterstate holds the next round's cards, as in fitting) by the mean over N deals of that round
(default 1). The agent plays its
preset's two-player game with no house switches and refuses any other (``check_rules``), as a
trained policy does.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from casino_env.engine import Move, Rules
from casino_env.engine.rules import PRESETS, make_rules
from casino_env.engine.view import PlayerView

from .afterstate import AfterstateNet, afterstate_nets
from .base import describe_rules
from .registry import register_loader
from .scripted import HeuristicAgent

ROOT = Path(__file__).resolve().parents[1]  # the checkout: the files below are committed
# preset -> its set networks (before the last deal, on the last deal); how each was made:
# docs/expert_iteration.md
SET_NETWORKS: dict[str, tuple[str, str]] = {
    # casino's last deal: the large data (16 tree, 52 play-out shards) at a constant rate, 8
    # epochs (twenty-seventh session; set_big_net.pt before)
    "casino": ("experiments/results/exit/midgame_net_casino/tail60_net.pt",
               "experiments/results/exit/endgame_net_casino_const/set_net.pt"),
} | {  # the presets made by ``python -m experiments.midgame_net pipeline --variant V``, their
    # last deal by ``endgame_net pipeline --variant V --lr-schedule constant --epochs 8``
    # (royal and dominican fitted again so in the twenty-sixth session, dominican with
    # --walk-shards 40; spade made so in the twenty-eighth, its before-last on 30 shards;
    # wippen by ``python -m experiments.networks_build --variant wippen``, thirty-first session,
    # swedish and tuxedo by the same command, thirty-second and thirty-third sessions,
    # hungarian in the thirty-fourth, finnish in the thirty-fourth and thirty-fifth,
    # krypkasino in the thirty-sixth and thirty-seventh, swazi in the thirty-eighth and
    # thirty-ninth)
    v: (f"experiments/results/exit/midgame_net_{v}_pipeline/tail_net.pt",
        f"experiments/results/exit/endgame_net_{v}_const/set_net.pt")
    for v in ("royal", "dominican", "spade", "wippen", "swedish", "tuxedo", "hungarian",
              "finnish", "krypkasino", "swazi")}
# preset -> the shards of 200 hands its network before the last deal was fitted on where not
# 30 (``experiments.networks_build`` makes it so, into ``midgame_net_V_N`` and
# ``distill_net_V_N``): hungarian's held-out loss fell from 0.275 to 0.265 points a decision
# on 60 (the heuristic 0.306) and its agent gained +0.5 points of hands, paired (thirty-fifth
# and thirty-sixth sessions); spade's from 0.0987 to 0.0909 (the heuristic 0.139), its agent
# +0.1 points of hands, paired, within noise (thirty-eighth session); swazi's on 10 (its
# rollouts run to the hand's end; its strength is mostly the last deal's, thirty-ninth);
# tuxedo's on 60 (its rollouts to the hand's end are noisy: the set networks +2.2 points of
# hands, paired, its agent with the new student +1.6, forty-fifth session), on 120 since the
# forty-seventh (with BEFORE_LAST_HIDDEN below)
BEFORE_LAST_SHARDS: dict[str, int] = {"hungarian": 60, "spade": 60, "swazi": 10, "tuxedo": 120}
# preset -> the width of its set network before the last deal where not 64 (its folder gains
# ``_hH``): tuxedo's 128 wide on its 120 shards lost 1.427 points a held-out decision (64
# wide: 1.475; the heuristic 1.921) and plays in 0.73 ms a decision, so it plays itself, with
# no student (UNDISTILLED; forty-seventh session)
BEFORE_LAST_HIDDEN: dict[str, int] = {"tuxedo": 128}


def before_last_hidden(preset: str) -> int:
    """The width of ``preset``'s set network before the last deal (64 where not named)."""
    return BEFORE_LAST_HIDDEN.get(preset, 64)


def width_suffix(hidden: int) -> str:
    """What a set network ``hidden`` wide adds to its folder's or checkpoint's name: ``_hH``,
    nothing for the default 64."""
    return "" if hidden == 64 else f"_h{hidden}"


def before_last_folder(preset: str, shards: int | None = None) -> str:
    """The folder (under experiments/results/exit) of ``preset``'s set network before the last
    deal refitted on ``shards`` (default: the preset's ``BEFORE_LAST_SHARDS``):
    ``midgame_net_V_N``, ``_hH`` after it for a width H other than 64."""
    return (f"midgame_net_{preset}_{shards or BEFORE_LAST_SHARDS[preset]}"
            + width_suffix(before_last_hidden(preset)))


for _v in BEFORE_LAST_SHARDS:
    SET_NETWORKS[_v] = (f"experiments/results/exit/{before_last_folder(_v)}/tail_net.pt",
                        SET_NETWORKS[_v][1])
# preset -> the play-out shards its last deal's network was refitted on, where that one plays
# (``experiments.networks_build`` makes it so, into ``endgame_net_V_N``, after the networks
# before the last deal were made beside the first): dominican's on 120 instead of 40, whose
# network lost 64% of the heuristic's points a held-out decision instead of 90%, its agent
# +2.0 points of hands, paired (thirty-ninth session); wippen's on 96 instead of 24, 46% of the
# heuristic's points instead of 73%, its agent +1.4 points of hands, paired (fortieth session);
# royal's on 96 instead of 24, 70% of the heuristic's points instead of 86%, its agent
# +1.8 points of hands, paired (forty-first session); hungarian's on 640 instead of 160, 54%
# of the heuristic's points instead of 71%, its agent +0.06 points a hand and +0.4 points of
# hands, paired (forty-second session); tuxedo's on 960 instead of 240, 19% of the
# heuristic's points instead of 48%, its agent +0.4 points of hands and +0.37 points a hand,
# paired (fiftieth session); krypkasino's on 960 instead of 240, 26% of the heuristic's points
# instead of 52%, its agent +0.3 points of hands and +0.10 points a hand, paired (fifty-second
# session)
LAST_DEAL_SHARDS: dict[str, int] = {"dominican": 120, "wippen": 96, "royal": 96,
                                    "hungarian": 640, "tuxedo": 960, "krypkasino": 960}
# preset -> the epochs of its refit above where not 8 (its folder gains ``_eE``): hungarian's
# 640-shard fit went on from its eighth epoch to the sixteenth and the twenty-fourth, 41% of
# the heuristic's points a held-out decision instead of 54%, its agent +0.7 points of hands
# and +0.08 points a hand, paired (forty-third session); royal's 96-shard fit from its eighth
# epoch to the sixteenth, 62% of the heuristic's points instead of 70% (forty-fourth session);
# tuxedo's 960-shard fit from its eighth epoch to the sixteenth, 9% of the heuristic's points
# instead of 19%, its agent +0.3 points of hands and +0.18 points a hand, paired (fifty-first
# session)
LAST_DEAL_EPOCHS: dict[str, int] = {"hungarian": 24, "royal": 16, "tuxedo": 16}


def last_deal_refit(preset: str, shards: int | None = None, epochs: int | None = None) -> str:
    """The folder (under experiments/results/exit) of ``preset``'s refitted last-deal network:
    ``endgame_net_V_N`` for N play-out shards, ``_eE`` after it when fitted for E epochs other
    than 8; the shipped refit's unless ``shards``/``epochs`` name an earlier one."""
    shards = shards or LAST_DEAL_SHARDS[preset]
    epochs = epochs or LAST_DEAL_EPOCHS.get(preset, 8)
    return f"endgame_net_{preset}_{shards}" + (f"_e{epochs}" if epochs != 8 else "")


for _v in LAST_DEAL_SHARDS:
    SET_NETWORKS[_v] = (SET_NETWORKS[_v][0],
                        f"experiments/results/exit/{last_deal_refit(_v)}/set_net.pt")
# presets whose set network before the last deal plays itself, with no student: it meets the
# 1,000 decisions a second on its own and its students gave up points to it (tuxedo: the
# 128-wide network on 120 shards, 0.73 ms a decision, +1.35 points a hand on the 60-shard
# student, paired; forty-seventh session)
UNDISTILLED: tuple[str, ...] = ("tuxedo",)
# preset -> an MLP student of its set network before the last deal, played in its place
# (``python -m experiments.distill_net pipeline --variant V``, twenty-ninth session: the same
# strength in play in a fraction of the time; every preset with set networks but those above)
STUDENTS: dict[str, str] = {
    v: "experiments/results/exit/distill_net_"
       + (f"{v}_{BEFORE_LAST_SHARDS[v]}" if v in BEFORE_LAST_SHARDS else v) + "/student_256.pt"
    for v in SET_NETWORKS if v not in UNDISTILLED}
# presets whose last deal's set network is too slow for 1,000 decisions a second: swazi's
# attends over 12-card hands (1.76 ms a last-deal decision), so an MLP student of it plays the
# last deal too (``distill_net pipeline --scope last_deal``, ``networks_build``'s last step;
# thirty-ninth session), into the before-last student's folder name + ``_last_deal``
LAST_DEAL_STUDENTS: dict[str, str] = {
    v: STUDENTS[v].replace("/student_256.pt", "_last_deal/student_256.pt") for v in ("swazi",)}
# preset -> (before the last deal, on the last deal): what ``networks:PRESET`` plays
SHIPPED: dict[str, tuple[str, str]] = {v: (STUDENTS.get(v, mid), LAST_DEAL_STUDENTS.get(v, end))
                                       for v, (mid, end) in SET_NETWORKS.items()}
# preset -> the set network its shipped student was fitted to (``experiments.distill_net``'s
# teacher before the last deal; on it the teacher is always the set network,
# ``SET_NETWORKS[V][1]``; a preset without a student ships its own)
TEACHERS: dict[str, str] = {v: SET_NETWORKS[v][0] for v in STUDENTS}


@cache
def _load(path: str, option: str, prior: float | None = None,
          candidates: int | None = None, samples: int | None = None) -> AfterstateNet:
    """A network loaded once a process, prior and candidate count (it holds no game state),
    checked to be of the scope ``option`` names."""
    before_last = option == "midgame_net"
    end, mid = afterstate_nets(None if before_last else path, None,
                               path if before_last else None, prior if before_last else None,
                               candidates if before_last else None,
                               samples if before_last else None)
    return end or mid


class NetworksAgent(HeuristicAgent):
    """Afterstate value networks only (see the module text)."""

    name = "networks"

    def __init__(self, preset: str, seed: int | None = None, midgame_net: str | None = None,
                 endgame_net: str | None = None, midgame_prior: float | None = None,
                 midgame_candidates: int | None = None,
                 midgame_samples: int | None = None) -> None:
        super().__init__(seed)
        if preset not in PRESETS:
            raise ValueError(f"agent 'networks:{preset}': unknown preset (known: "
                             f"{', '.join(PRESETS)})")
        shipped = SHIPPED.get(preset)
        if shipped is None and (midgame_net is None or endgame_net is None):
            raise ValueError(f"agent 'networks:{preset}': no networks ship for {preset!r} "
                             f"(shipped: {', '.join(SHIPPED)}); give midgame_net=PATH and "
                             "endgame_net=PATH")
        mid = midgame_net if midgame_net is not None else str(ROOT / shipped[0])
        end = endgame_net if endgame_net is not None else str(ROOT / shipped[1])
        self.midgame_net = _load(mid, "midgame_net", midgame_prior, midgame_candidates,
                                 midgame_samples)
        self.endgame_net = _load(end, "endgame_net")
        self.rules = self._checked = make_rules(preset, 2)
        for net in (self.midgame_net, self.endgame_net):
            if net.rules != self.rules:
                raise ValueError(f"agent 'networks:{preset}': {net.option} {net.path} was "
                                 f"fitted on {describe_rules(net.rules)}")

    def check_rules(self, rules: Rules) -> None:
        """ValueError unless ``rules`` are the game the networks were fitted on (the preset,
        two players, no house switches)."""
        if rules is self._checked:  # rules are frozen: one comparison a game
            return
        if rules != self.rules:
            raise ValueError(f"these networks were fitted on {describe_rules(self.rules)}, "
                             f"this game is {describe_rules(rules)}")
        self._checked = rules

    def choose(self, view: PlayerView) -> Move:
        self.check_rules(view.rules)
        return super().choose(view)


def load_networks(preset: str, seed: int | None = None, midgame_net: str | None = None,
                  endgame_net: str | None = None, midgame_prior: float | None = None,
                  midgame_candidates: int | None = None,
                  midgame_samples: int | None = None) -> NetworksAgent:
    """Loader for ``make_agent("networks:<preset>")`` (see the module text)."""
    return NetworksAgent(preset.strip().lower(), seed, midgame_net, endgame_net, midgame_prior,
                         midgame_candidates, midgame_samples)


register_loader("networks", load_networks, "PRESET")

__all__ = ["BEFORE_LAST_HIDDEN", "BEFORE_LAST_SHARDS", "LAST_DEAL_EPOCHS", "LAST_DEAL_SHARDS",
           "LAST_DEAL_STUDENTS", "SET_NETWORKS", "SHIPPED", "STUDENTS", "TEACHERS", "UNDISTILLED",
           "NetworksAgent", "before_last_folder", "before_last_hidden", "last_deal_refit",
           "load_networks", "width_suffix"]
