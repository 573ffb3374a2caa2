"""HTTP edges: translate a request into one service or store call and a response."""
