"""Server-rendered HTML pages: the leaderboard and evaluation reports, usable without JavaScript."""
