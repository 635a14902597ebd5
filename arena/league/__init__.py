"""A season: a league folder (SQLite + replays), submissions, matchmaking, ratings and pages.

    store = Store.open(folder)              # league.db: the one source of truth
    season = Season(store, executor, ...)   # plays the tables that tell most, records each
    app = web.app(store, ...)               # the pages and the API (docs/league.md)

The league sits above `tournaments` (it plays through `runner.play_task` and the executors) and
below `ui`: it checks a submission with `arena check`'s own judgement (`arena.referee.check`,
`intake.arena_check`); the replay viewer, a page of the command line's layer, is handed to it by
`arena.ui.league_command` as a function.
"""
