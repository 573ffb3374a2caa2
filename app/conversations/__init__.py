"""Conversations that answer back: a user (scripted or simulated) reacts to what the target said."""
