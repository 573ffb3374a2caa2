"""A thin queue interface of ours: in-process by default, arq on Redis when configured."""
