#!/bin/sh
# Print how many arguments were given.
echo "entries: $#"
