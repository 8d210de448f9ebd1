"""One command for a preset's network-alone agent (issue 18): every network ``networks:V``
plays, made in order and resumable across sessions.

    python -m experiments.networks_build --variant wippen --workers 2

1. the boundary value (``experiments.tail_value build``, if ``tail_value_V/tail.npz`` is
   missing; its shards go to ``runs/tail_value``, so it must finish in the session it starts);
   none where the rules define none (``agents.tail_value.tail_supported``: tuxedo's event
   points), and step 3's rollouts then go to the hand's end;
2. the last deal's set network on exact values (``experiments.endgame_net pipeline``, a
   constant rate, 8 epochs, 4 tree shards or ``TREE_SHARDS``, 24 play-out shards or
   ``WALK_SHARDS``; solved from
   ``FROM_CARDS`` cards in hand where a deal is too large to solve whole, with
   ``ABOVE_SHARDS`` shards of the decisions above them valued by play-outs) into
   ``endgame_net_V_const``, and the cloned policy with it
   against the heuristic where the preset has a cloned policy;
3. the set network before the last deal on rollout values (``experiments.midgame_net
   pipeline``, 30 shards of 200 hands, ``PIPELINE_SHARDS``, ``BEFORE_LAST_SHARDS`` or
   ``--before-last-shards``; 64 wide or ``BEFORE_LAST_HIDDEN``) into
   ``midgame_net_V_pipeline`` (``midgame_net_V_N`` for N shards other than 30 or
   ``PIPELINE_SHARDS``, ``_hH`` after it for a width H other than 64; casino's, made before
   the pipeline with its settings, into ``BEFORE_LAST_FILE``'s file and its match there), and
   the two networks against the heuristic, 5,000 hands;
4. its MLP student (``experiments.distill_net pipeline``, 256 wide) into ``distill_net_V``
   (``distill_net_V_N``, its shards in the work folder's sibling ``_work_VN``, so that none
   valued by another teacher is reused), and the agent with it against the heuristic, 5,000
   hands; none for the presets of ``agents.networks.UNDISTILLED``, whose set network plays
   itself;
5. for the presets of ``agents.networks.LAST_DEAL_SHARDS`` only, the last deal's set network
   refitted on that many play-out shards (step 2's settings, for ``LAST_DEAL_EPOCHS`` epochs
   where not 8, its shards in the work folder's sibling ``_work_VN``) into
   ``endgame_net_V_N`` (``endgame_net_V_N_eE`` for E epochs), and the agent with it and step
   4's student against the heuristic, 5,000 hands (``networks_v_heuristic`` in that folder);
   the networks before the last deal stay those made beside step 2's;
6. for the presets of ``agents.networks.LAST_DEAL_STUDENTS`` only (a last deal too slow on its
   set network), an MLP student of the last deal's set network the same way (``--scope
   last_deal``; its shards beside step 4's) into step 4's folder + ``_last_deal``, and the
   agent with both students against the heuristic, 5,000 hands.

The settings are those the shipped spade networks were made with (docs/expert_iteration.md).
Shards and checkpoints go to ``--work`` (default ``experiments/results/exit/_work_V``, kept
across sessions and ignored by git); each step is skipped once its output is on disk. A
closing match (a report on the networks, not part of the agent) whose folder already holds a
match of other agents is skipped with a note naming them: royal's and dominican's committed
reports before the last deal and of their students were played beside earlier last deals
(``endgame_net_V_pipeline``; the then shipped one), and they stay what the docs cite;
the networks are what this command makes, and a fresh match would cost hours. The
made networks are what ``agents.networks.SET_NETWORKS``, ``STUDENTS`` and
``LAST_DEAL_STUDENTS`` name for the presets that ship them (steps 5 and 6 are numbered among
the steps a preset takes).
"""

from __future__ import annotations

import argparse
from pathlib import Path

# shards before the last deal where 30 were too few: the shipped networks' own record,
# so the command makes what ``networks:V`` plays
from agents.networks import (
    BEFORE_LAST_SHARDS,
    LAST_DEAL_EPOCHS,
    LAST_DEAL_SHARDS,
    LAST_DEAL_STUDENTS,
    UNDISTILLED,
    before_last_folder,
    before_last_hidden,
    last_deal_refit,
)
from experiments import distill_net, endgame_net, midgame_net, tail_value

EXIT = Path("experiments/results/exit")
# play-out shards of the last deal's data where the default 24 hold too few decisions: tuxedo
# deals 2 cards each last, so 24 shards held 26k decisions (the other presets' 200k-300k) and
# the network fitted on them lost more points a decision than the heuristic; hungarian deals 3
# cards each, and 24 shards held 43k decisions; krypkasino's last deal is 2 cards each (the
# two decks' last 4 cards), about 580 decisions a shard; dominican's tree shards hold few
# decisions, and its shipped network was fitted on 40 (twenty-sixth session)
# casino's shipped network (twenty-seventh session) on 16 tree and 52 play-out shards
WALK_SHARDS = {"tuxedo": 240, "hungarian": 160, "krypkasino": 240, "dominican": 40,
               "casino": 52}
# tree shards of the last deal's data where not 4 (casino's, as above; its fits.csv)
TREE_SHARDS = {"casino": 16}
# where the last deal is too large to solve whole, the cards a mover holds from which it is
# solved (``endgame_net collect --from-cards``; the network plays from there, the heuristic
# before): swazi deals 12 cards each, and solving from 6 took about a minute a hand, from 5
# a few seconds, on a shared core (thirty-fifth session)
FROM_CARDS = {"swazi": 5}
# and shards of the decisions above those cards, valued by the heuristic's play-outs (solved
# exactly from 4 cards a hand): the cheap label that lost least against exact play at 5 to 7
# cards (``endgame_net online --labels``), so that the network plays the whole last deal
ABOVE_SHARDS = {"swazi": 12}


# shards of 200 hands in ``midgame_net_V_pipeline`` where not 30: royal's and dominican's
# networks before the last deal were made by ``midgame_net pipeline`` on 60 (twenty-second to
# twenty-sixth sessions), before this command, into the folder it names for its default;
# casino's on 60 too (``BEFORE_LAST_FILE``)
PIPELINE_SHARDS = {"royal": 60, "dominican": 60, "casino": 60}
# preset -> (folder, network file, closing match's folder) of its shipped network before the
# last deal where not ``midgame_net_V_pipeline``'s tail_net.pt and networks_v_heuristic:
# casino's came before the pipeline, from ``midgame_net collect`` (60 shards of 200 hands,
# seed 2, 32 rollouts to the boundary value: the pipeline's collect) and ``endgame_net fit``
# (set, 64 wide, 2 layers, centered, suit swaps, 6 epochs, cosine, seed 0: the pipeline's fit)
# into midgame_net_casino/tail60_net.pt (its fits.csv holds the fits on fewer shards too);
# the match of the two networks is networks_casino_const_v_heuristic (twenty-seventh
# session, played as ``networks:casino,endgame_net=...``, so kept, not played again)
BEFORE_LAST_FILE = {"casino": ("midgame_net_casino", "tail60_net.pt",
                               "networks_casino_const_v_heuristic")}


# the settings every last deal's set network and every student is made with (steps 2 and 5;
# 4 and 6)
LAST_DEAL_FIT = dict(lr_schedule="constant", epochs=8)
STUDENT_FIT = dict(shards=24, hands=500, hidden=256, epochs=8, match_hands=5000)


def sibling(work: Path, n: int) -> Path:
    """The work folder's sibling for a refit on ``n`` shards (``_work_V`` -> ``_work_VN``)."""
    return work.with_name(f"{work.name}{n}")


def pipeline_shards(variant: str) -> int:
    """The shards of ``variant``'s network in ``midgame_net_V_pipeline`` (any other count is a
    refit into ``midgame_net_V_N``)."""
    return PIPELINE_SHARDS.get(variant, 30)


def before_last_shards(variant: str) -> int:
    """How many shards of 200 hands ``variant``'s network before the last deal is fitted on."""
    return BEFORE_LAST_SHARDS.get(variant, pipeline_shards(variant))


def refit(variant: str, shards: int | None = None) -> int | None:
    """The shards before the last deal (``shards`` or the preset's) if they make a refit into
    folders suffixed with their number, None if they are the pipeline folder's."""
    n = shards or before_last_shards(variant)
    return None if n == pipeline_shards(variant) else n


def outputs(variant: str, shards: int | None = None) -> dict[str, Path]:
    """Where each step writes ``variant``'s results (the folders named in the module text;
    ``shards``: before the last deal, if not the preset's ``before_last_shards``)."""
    n = refit(variant, shards)
    student = EXIT / (f"distill_net_{variant}_{n}" if n else f"distill_net_{variant}")
    out = {"tail": tail_value.tail_path(variant),
           "last_deal": EXIT / f"endgame_net_{variant}_const",
           "before_last": (EXIT / before_last_folder(variant, n) if n
                           else EXIT / BEFORE_LAST_FILE[variant][0]
                           if variant in BEFORE_LAST_FILE
                           else endgame_net.pipeline_out("midgame_net", variant))}
    if variant not in UNDISTILLED:
        out |= {"student": student,
                "last_deal_student": student.with_name(f"{student.name}_last_deal")}
    if variant in LAST_DEAL_SHARDS:
        out["last_deal_refit"] = EXIT / last_deal_refit(variant)
    return out


def networks(variant: str, shards: int | None = None) -> dict[str, Path]:
    """The network file each step of ``outputs`` writes (``shards`` as there)."""
    out = outputs(variant, shards)
    mid = BEFORE_LAST_FILE[variant][1] if variant in BEFORE_LAST_FILE and not \
        refit(variant, shards) else "tail_net.pt"
    files = {"last_deal": out["last_deal"] / "set_net.pt",
             "before_last": out["before_last"] / mid}
    files |= {k: out[k] / "student_256.pt" for k in ("student", "last_deal_student") if k in out}
    if "last_deal_refit" in out:
        files["last_deal_refit"] = out["last_deal_refit"] / "set_net.pt"
    return files


def played(variant: str, shards: int | None = None) -> tuple[Path, Path]:
    """The two networks ``networks:V`` plays once the command has made them (before the last
    deal, on it): what ``agents.networks.SHIPPED`` names for a preset that ships them."""
    files = networks(variant, shards)
    mid = files.get("student", files["before_last"])
    end = files["last_deal_student"] if variant in LAST_DEAL_STUDENTS else \
        files.get("last_deal_refit", files["last_deal"])
    return mid, end


def student_work(variant: str, work: Path, shards: int | None = None) -> Path:
    """Where the student's shards go: ``work`` itself for the pipeline folder's shards before
    the last deal, its sibling ``work.name + N`` for a refit on N (their values come from
    another teacher)."""
    n = refit(variant, shards)
    return sibling(work, n) if n else work


def build(variant: str, workers: int = 2, work: Path | None = None,
          before_last: int | None = None) -> dict[str, dict]:
    """Make ``variant``'s networks (see the module text; ``before_last``: that many shards
    before the last deal instead of the preset's, a refit into folders of its own, which
    ``networks:V`` plays once ``BEFORE_LAST_SHARDS`` and ``agents.networks`` name it);
    returns each closing match's summary by step ({} where a step plays none)."""
    from agents.tail_value import tail_supported
    from casino_env.engine import new_game
    from casino_env.engine.rules import PRESETS

    if variant not in PRESETS:
        raise SystemExit(f"error: --variant: unknown preset {variant!r} (known: "
                         f"{', '.join(PRESETS)})")
    if workers < 1:
        raise SystemExit(f"error: --workers must be >= 1, got {workers}")
    if before_last is not None and before_last < 1:
        raise SystemExit(f"error: --before-last-shards must be >= 1, got {before_last}")
    n = before_last or before_last_shards(variant)
    out = outputs(variant, n)
    steps = (3 + (variant not in UNDISTILLED) + (variant in LAST_DEAL_SHARDS)
             + (variant in LAST_DEAL_STUDENTS))
    work = work or EXIT / f"_work_{variant}"
    tail = out["tail"] if tail_supported(new_game(variant, 2, seed=0).rules) else None
    if tail is None:
        print(f"[networks_build 1/{steps}] no boundary value for {variant}'s rules: the network "
              "before the last deal learns from rollouts to the hand's end", flush=True)
    elif not tail.is_file():
        print(f"[networks_build 1/{steps}] the boundary value into {tail}", flush=True)
        tail_value.build(variant)
    policy = Path(f"experiments/results/train/{variant}/model.zip")
    print(f"[networks_build 2/{steps}] the last deal's network into {out['last_deal']}", flush=True)
    cards = dict(from_cards=FROM_CARDS.get(variant, 0), above_shards=ABOVE_SHARDS.get(variant, 0))
    summaries = {"last_deal": endgame_net.pipeline(
        variant, out["last_deal"], work, workers=workers, **LAST_DEAL_FIT,
        hands=2000 if policy.is_file() else 0, tree_shards=TREE_SHARDS.get(variant, 4),
        walk_shards=WALK_SHARDS.get(variant, 24), **cards, keep_other=True)}
    files = networks(variant, n)
    end = files["last_deal"]
    named = {} if refit(variant, n) or variant not in BEFORE_LAST_FILE else \
        {"net_name": files["before_last"].name,
         "match_out": EXIT / BEFORE_LAST_FILE[variant][2]}
    print(f"[networks_build 3/{steps}] the network before the last deal into {out['before_last']}",
          flush=True)
    summaries["before_last"] = midgame_net.pipeline(
        variant, out["before_last"], work, shards=n, hands=5000,
        workers=workers, tail=tail, endgame=end, hidden=before_last_hidden(variant),
        keep_other=True, **named)
    mid = files["before_last"]
    step = 3
    if variant not in UNDISTILLED:
        step = 4
        print(f"[networks_build 4/{steps}] its student into {out['student']}", flush=True)
        summaries["student"] = distill_net.pipeline(
            variant, "before_last", out["student"], student_work(variant, work, n),
            workers=workers, **STUDENT_FIT, networks=(str(mid), str(end)), keep_other=True)
    if variant in LAST_DEAL_SHARDS:
        step, refitted, k = step + 1, out["last_deal_refit"], LAST_DEAL_SHARDS[variant]
        print(f"[networks_build {step}/{steps}] the last deal's network on {k} play-out shards "
              f"into {refitted}", flush=True)
        endgame_net.pipeline(variant, refitted, sibling(work, k), workers=workers,
                             **LAST_DEAL_FIT | {"epochs": LAST_DEAL_EPOCHS.get(variant, 8)},
                             hands=0, walk_shards=k, **cards, keep_other=True)
        summaries["last_deal_refit"] = endgame_net.closing_match(
            variant, f"networks:{variant},endgame_net={refitted / 'set_net.pt'}",
            refitted / "networks_v_heuristic", 5000, workers, keep_other=True)
    if variant in LAST_DEAL_STUDENTS:
        step += 1
        print(f"[networks_build {step}/{steps}] the last deal's student into "
              f"{out['last_deal_student']}", flush=True)
        summaries["last_deal_student"] = distill_net.pipeline(
            variant, "last_deal", out["last_deal_student"], student_work(variant, work, n),
            workers=workers, **STUDENT_FIT, networks=(str(mid), str(end)),
            beside=str(files["student"]), keep_other=True)
    for name, s in summaries.items():
        if s:
            print(f"{name}: {s['agent']} v heuristic {s['win_rate']:.1%} [{s['lo']:.1%}, "
                  f"{s['hi']:.1%}] of {s['hands']:,} hands", flush=True)
    return summaries


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--variant", default="casino")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--before-last-shards", type=int, default=None, metavar="N",
                    help="shards of 200 hands before the last deal (default: the preset's, "
                    "30, PIPELINE_SHARDS or BEFORE_LAST_SHARDS); another number is a refit "
                    "into midgame_net_V_N and distill_net_V_N")
    ap.add_argument("--work", type=Path, default=None,
                    help="shards and checkpoints (default experiments/results/exit/_work_V)")
    a = ap.parse_args(argv)
    build(a.variant, a.workers, a.work, a.before_last_shards)


if __name__ == "__main__":
    main()
