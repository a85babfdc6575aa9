read 96603 atoms from file '/home/nvidia/ssd/gits/BWLOCK-GPU/benchmarks/parboil/datasets/cutcp/large/input/watbox.sl100.pqr'
extent of domain is:
  minimum -49.998 -49.997 -49.996
  maximum 50 49.99 49.971
padding domain by 0.5 Angstroms
domain lengths are 100.998 by 100.987 by 100.967

IO        : 0.275343
Compute   : 97.048675
Timer Wall Time: 97.324020
Pass
Parboil parallel benchmark suite, version 0.2


 Performance counter stats for './parboil run cutcp omp_base large':

     390284.191968      task-clock (msec)         #    4.001 CPUs utilized          
             3,920      context-switches          #    0.010 K/sec                  
                59      cpu-migrations            #    0.000 K/sec                  
            24,605      page-faults               #    0.063 K/sec                  
   791,238,960,673      cycles                    #    2.027 GHz                    
   <not supported>      stalled-cycles-frontend  
   <not supported>      stalled-cycles-backend   
   427,915,796,202      instructions              #    0.54  insns per cycle        
   <not supported>      branches                 
     1,216,069,953      branch-misses             #    0.00% of all branches        

      97.553805983 seconds time elapsed

