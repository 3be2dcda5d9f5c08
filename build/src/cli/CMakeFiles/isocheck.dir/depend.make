# Empty dependencies file for isocheck.
# This may be replaced when dependencies are built.
