# Empty dependencies file for isocheck_graph.
# This may be replaced when dependencies are built.
