// The gamma_ray subcommands that train and evaluate networks: train, evaluate, table, figure
// (main.cpp dispatches; graph and simulate live there). Each takes argc/argv after the
// subcommand's name and returns the exit status; errors throw (run_app prints one line, exit 2).
// Read experiment.hpp first.
#pragma once

namespace empl::gamma_ray {

int run_train(int argc, char** argv);
int run_evaluate(int argc, char** argv);
int run_table(int argc, char** argv);
int run_figure(int argc, char** argv);

}  // namespace empl::gamma_ray
