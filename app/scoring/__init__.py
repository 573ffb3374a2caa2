"""Items → report metrics with intervals; leaderboard rows."""
