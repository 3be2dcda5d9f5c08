file(REMOVE_RECURSE
  "libisocheck_graph.a"
)
