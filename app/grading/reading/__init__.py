"""Reading text: sentences and scope, cue lexicons, fast literal search, the conversation's risk, a reply's parts."""
