# Empty compiler generated dependencies file for isocheck_closure.
# This may be replaced when dependencies are built.
