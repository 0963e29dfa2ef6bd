BUILD_FIX_PROBLEM = """The project's Dockerfile:
{DOCKERFILE}

The build failed. Find the cause and fix the build script.
### Interaction protocol
1. Read the error log and name the failing step in one sentence.
2. Propose the smallest change to the build script that fixes that step; never edit the Dockerfile.
3. Reply with the whole new build script in one fenced block, then one line saying what you changed.
4. When the log shows a missing system package, install it in the build script with apt-get.
"""
